/**
 * Moves keep-alive clients off a draining server while it still listens.
 * During the drain every reply carries `Connection: close`, so a connection in
 * use ends after its reply and the client reconnects (to another pod, once the
 * endpoints have dropped this one); a connection that carries no request for a
 * whole sweep period is closed. When the listener finally closes, no client is
 * about to reuse a connection, so no request is reset.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';

const lastResponse = Symbol('shaper-gen.lastResponse');
const responseAtLastSweep = Symbol('shaper-gen.responseAtLastSweep');

interface TrackedSocket extends TLSSocket {
  [lastResponse]?: ServerResponse;
  /** null: the connection had not carried a request at the last sweep; undefined: not swept yet. */
  [responseAtLastSweep]?: ServerResponse | null;
}

export class KeepAliveDrain {
  private readonly connections = new Set<TrackedSocket>();
  private draining = false;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    server: Server,
    private readonly sweepMs = 1000,
  ) {
    server.on('secureConnection', (socket: TrackedSocket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
  }

  /** Call for every request, before its response is written. */
  track(req: IncomingMessage, res: ServerResponse): void {
    (req.socket as TrackedSocket)[lastResponse] = res;
    if (this.draining) res.shouldKeepAlive = false;
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
    for (const socket of this.connections) {
      const last = socket[lastResponse] ?? null;
      if (last && !last.writableFinished) continue;
      if (socket[responseAtLastSweep] === last) socket.destroy();
      else socket[responseAtLastSweep] = last;
    }
  }
}
