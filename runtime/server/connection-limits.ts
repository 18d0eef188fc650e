/**
 * Bounds on the webhook port's connections: how many may be open, and how
 * many may be in their TLS handshake at once. Past a bound, the oldest
 * connection that has not sent a request yet (in its handshake, or connected
 * and silent) is closed to make room: the API server sends its request as
 * soon as its handshake completes, so that is what a flood of half-open or
 * idle connections holds, and new connections keep getting through.
 */
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ConnectionBounds {
  readonly maxConnections: number;
  readonly maxHandshakes: number;
}

export type ShedReason = 'handshakes' | 'connections';

interface Connection {
  readonly raw: Socket;
  secure?: TLSSocket;
  closed: boolean;
}

export class ConnectionLimits {
  /** By remote address and port, oldest first: the TLS socket is matched to its raw socket by them. */
  private readonly handshaking = new Map<string, Connection>();
  /** Handshake done, no request yet; oldest first. */
  private readonly silent = new Set<Connection>();
  private readonly bySecureSocket = new WeakMap<TLSSocket, Connection>();
  private open = 0;

  constructor(
    server: Server,
    private readonly bounds: ConnectionBounds,
    private readonly onShed: (reason: ShedReason) => void,
  ) {
    server.on('connection', (raw: Socket) => this.accept(raw));
    server.on('secureConnection', (secure: TLSSocket) => this.secured(secure));
  }

  get openConnections(): number {
    return this.open;
  }

  /** Call for every request: its connection is in use, not a candidate to shed. */
  track(socket: TLSSocket): void {
    const connection = this.bySecureSocket.get(socket);
    if (connection) this.silent.delete(connection);
  }

  private accept(raw: Socket): void {
    const key = connectionKey(raw);
    if (key === undefined) return void raw.destroy();
    const connection: Connection = { raw, closed: false };
    this.open++;
    raw.once('close', () => this.closed(connection, key));
    this.handshaking.set(key, connection);
    if (this.handshaking.size > this.bounds.maxHandshakes) this.shed(this.handshaking.values().next().value!, 'handshakes');
    if (this.open > this.bounds.maxConnections) this.shed(this.oldestSheddable() ?? connection, 'connections');
  }

  private secured(secure: TLSSocket): void {
    const key = connectionKey(secure);
    const connection = key === undefined ? undefined : this.handshaking.get(key);
    if (!connection) return;
    this.handshaking.delete(key!);
    connection.secure = secure;
    this.bySecureSocket.set(secure, connection);
    this.silent.add(connection);
    secure.once('close', () => this.closed(connection, key!));
  }

  private oldestSheddable(): Connection | undefined {
    return this.silent.values().next().value ?? this.handshaking.values().next().value;
  }

  private shed(connection: Connection, reason: ShedReason): void {
    this.onShed(reason);
    this.forget(connection);
    (connection.secure ?? connection.raw).destroy();
    connection.raw.destroy();
  }

  private closed(connection: Connection, key: string): void {
    if (connection.closed) return;
    connection.closed = true;
    this.open--;
    this.forget(connection, key);
  }

  /** No longer a candidate to shed (it is closing). */
  private forget(connection: Connection, key = connectionKey(connection.raw)): void {
    if (key !== undefined && this.handshaking.get(key) === connection) this.handshaking.delete(key);
    this.silent.delete(connection);
  }
}

function connectionKey(socket: Socket): string | undefined {
  return socket.remoteAddress === undefined ? undefined : `${socket.remoteAddress}|${socket.remotePort}`;
}
