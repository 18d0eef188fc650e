/**
 * Node bounds a request once its first byte arrives (headersTimeout), but not
 * a TLS connection that never sends one: without this, an idle client holds
 * its socket for ever. A connection that has not sent a request within the
 * deadline is closed.
 */
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';

export class FirstRequestDeadline {
  /** Timers of connections that have not sent a request yet; in a Map, not in the sockets (see KeepAliveDrain's connections). */
  private readonly waiting = new Map<TLSSocket, NodeJS.Timeout>();

  constructor(server: Server, ms: number) {
    server.on('secureConnection', (socket: TLSSocket) => {
      this.waiting.set(socket, setTimeout(() => socket.destroy(), ms).unref());
      socket.once('close', () => this.sent(socket));
    });
  }

  /** Call for every request: its connection has sent one. */
  sent(socket: TLSSocket): void {
    const timer = this.waiting.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.waiting.delete(socket);
  }
}
