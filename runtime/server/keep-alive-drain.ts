/**
 * Moves keep-alive clients off a draining server while it still listens.
 * During the drain every reply carries `Connection: close`, so a connection in
 * use ends after its reply and the client reconnects (to another pod, once the
 * endpoints have dropped this one); a connection that carries no request for a
 * whole sweep period is closed. When the listener finally closes, no client is
 * about to reuse a connection, so no request is reset.
 */
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Exchange } from './review-connection.js';

/** What the sweep needs to know of one connection. */
interface ConnectionUse {
  /** Requests it has carried. */
  requests: number;
  /** Its latest request's exchange (node:http's response, or the fast path's connection); undefined until it carries one. */
  latest: Exchange | undefined;
  /** `requests` at the last sweep; undefined until a sweep has seen it. */
  atSweep: number | undefined;
}

export class KeepAliveDrain {
  /**
   * By socket, in a Map rather than in properties of the sockets: a property added to a TLSSocket makes the store
   * polymorphic over Node's socket shapes, and in a busy server V8's shared cache for such stores misses (the Map
   * saved about 1,000 instructions per request, `npm run bench -- admission-instructions`).
   */
  private readonly connections = new Map<TLSSocket, ConnectionUse>();
  private draining = false;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    server: Server,
    private readonly sweepMs = 1000,
  ) {
    server.on('secureConnection', (socket: TLSSocket) => {
      this.connections.set(socket, { requests: 0, latest: undefined, atSweep: undefined });
      socket.once('close', () => this.connections.delete(socket));
    });
  }

  /** Call for every request, before its response is written: true when the response must close the connection (`Connection: close`). */
  track(socket: TLSSocket, exchange: Exchange): boolean {
    const use = this.connections.get(socket);
    if (use) {
      use.requests++;
      use.latest = exchange;
    }
    return this.draining;
  }

  start(): void {
    if (this.draining) return;
    this.draining = true;
    this.sweep();
    this.sweeper = setInterval(() => this.sweep(), this.sweepMs);
    this.sweeper.unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  // A request that arrives on a socket while we close it is reset; closing only sockets unused for a whole period keeps that race rare.
  private sweep(): void {
    for (const [socket, use] of this.connections) {
      if (use.latest && !use.latest.writableFinished) continue;
      if (use.atSweep === use.requests) socket.destroy();
      else use.atSweep = use.requests;
    }
  }
}
