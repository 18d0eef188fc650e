/**
 * Node bounds a request once its first byte arrives (headersTimeout), but not
 * a TLS connection that never sends one: without this, an idle client holds
 * its socket for ever. A connection that has not sent a request within the
 * deadline is closed.
 */
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';

const deadline = Symbol('shaper-gen.firstRequestDeadline');

interface WaitingSocket extends TLSSocket {
  [deadline]?: NodeJS.Timeout;
}

export class FirstRequestDeadline {
  constructor(server: Server, ms: number) {
    server.on('secureConnection', (socket: WaitingSocket) => {
      const timer = setTimeout(() => socket.destroy(), ms).unref();
      socket[deadline] = timer;
      socket.once('close', () => clearTimeout(timer));
    });
  }

  /** Call for every request: the connection has sent one. */
  track(req: IncomingMessage): void {
    const socket = req.socket as WaitingSocket;
    if (socket[deadline]) {
      clearTimeout(socket[deadline]);
      socket[deadline] = undefined;
    }
  }
}
