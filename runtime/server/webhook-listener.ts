/**
 * The webhook port: node:https with the bounds a client must keep (docs/guides/operations.md,
 * "Connection bounds and slow clients"), the connection bounds, the keep-alive drain, the fast path for review
 * requests (review-connection.ts) in front of node:http, and a TLS handshake with itself that proves it accepts
 * connections. What is served is the caller's.
 */
import https from 'node:https';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { ListenerConfig } from '../config/server-config.js';
import { ConnectionLimits, type ConnectionBounds, type ShedReason } from './connection-limits.js';
import { FirstRequestDeadline } from './first-request-deadline.js';
import { KeepAliveDrain } from './keep-alive-drain.js';
import { listen } from './listen.js';
import { installReviewPath, type Exchange, type ReviewConnections, type ReviewRoute } from './review-connection.js';

/** How long a client may hold a webhook-port socket without doing its part (docs/guides/operations.md, "Connection bounds and slow clients"). */
export const HANDSHAKE_TIMEOUT_MS = 10_000;
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
export const KEEP_ALIVE_TIMEOUT_MS = 120_000;

/** What the port serves. */
export interface ListenerRoutes {
  /** Every request the fast path does not answer. */
  readonly node: RequestListener;
  /** The fast path's route for a request path (without its query), if it has one. */
  readonly review: (path: string) => ReviewRoute | undefined;
  /** Larger review bodies go to node:http, whose endpoint refuses them. */
  readonly maxBodyBytes: number;
}

export interface ConnectionPolicy {
  /** Client certificates are required. */
  readonly mtls: boolean;
  readonly bounds: ConnectionBounds;
  /** A connection was closed at a bound. */
  readonly onShed: (reason: ShedReason) => void;
}

export class WebhookListener {
  /** For the certificate source, which replaces its secure context. */
  readonly server: https.Server;
  private readonly mtls: boolean;
  private readonly firstRequest: FirstRequestDeadline;
  private readonly keepAlive: KeepAliveDrain;
  private readonly limits: ConnectionLimits;
  /** Undefined when node:http's connection handling could not be found (then it serves everything). */
  private readonly reviews: ReviewConnections | undefined;

  /** `tlsOptions` from tlsServerOptions(). */
  constructor(tlsOptions: https.ServerOptions, routes: ListenerRoutes, log: Logger, { mtls, bounds, onShed }: ConnectionPolicy) {
    this.mtls = mtls;
    this.server = https.createServer(
      // Enforce headersTimeout and requestTimeout within a second of their values (Node's default check interval: 30 s).
      { ...tlsOptions, connectionsCheckingInterval: 1000 },
      (req: IncomingMessage, res: ServerResponse) => {
        if (this.requestStarted(req.socket as TLSSocket, res)) res.shouldKeepAlive = false;
        routes.node(req, res);
      },
    );
    this.reviews = installReviewPath(this.server, {
      route: routes.review,
      maxBodyBytes: routes.maxBodyBytes,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      onRequest: (socket, exchange) => this.requestStarted(socket, exchange),
    });
    // The API server keeps connections open; keep them longer than its idle timeout (90 s), so it never sends on a socket we are closing.
    this.server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // The API server sends a whole request at once: a client that trickles headers or a body is cut off.
    this.server.headersTimeout = HEADERS_TIMEOUT_MS;
    this.server.requestTimeout = REQUEST_TIMEOUT_MS;
    this.server.on('tlsClientError', (error) => log.debug({ err: error }, 'TLS handshake failed'));
    this.firstRequest = new FirstRequestDeadline(this.server, HEADERS_TIMEOUT_MS);
    this.keepAlive = new KeepAliveDrain(this.server);
    this.limits = new ConnectionLimits(this.server, bounds, onShed);
  }

  /** A request has arrived on `socket`: true when its reply must close the connection (a drain). */
  private requestStarted(socket: TLSSocket, exchange: Exchange): boolean {
    this.firstRequest.sent(socket);
    this.limits.track(socket);
    return this.keepAlive.track(socket, exchange);
  }

  listen(config: ListenerConfig): Promise<AddressInfo> {
    return listen(this.server, config);
  }

  /** A real TLS handshake with this listener: undefined when it accepts connections with the loaded certificate, else why not. */
  handshake(): Promise<string | undefined> {
    const address = this.server.address() as AddressInfo | null;
    if (!address) return Promise.resolve('not listening');
    const host = address.address === '::' || address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
    return new Promise((resolve) => {
      const socket = tls.connect({ host, port: address.port, rejectUnauthorized: false, timeout: 2000, servername: 'localhost' });
      const done = (failure: string | undefined) => {
        socket.destroy();
        resolve(failure);
      };
      socket.once('secureConnect', () => done(undefined));
      // With mTLS required, our probe has no client certificate: a handshake that got as far as that still proves the listener works.
      socket.once('error', (error: NodeJS.ErrnoException) => done(this.mtls && error.code !== 'ECONNREFUSED' ? undefined : `TLS handshake with ${host}:${address.port} failed: ${error.message}`));
      socket.once('timeout', () => done(`TLS handshake with ${host}:${address.port} timed out`));
    });
  }

  /** From now on every reply says `Connection: close`, and idle connections are swept (KeepAliveDrain). */
  startDrain(): void {
    this.keepAlive.start();
  }

  /** Stops listening and lets requests in flight finish within `timeoutMs`; past it, closes their connections and resolves 'timeout'. */
  async close(timeoutMs: number): Promise<'closed' | 'timeout'> {
    // net.Server's close, not http's: that one also closes every connection without a request in flight at once,
    // including one whose client has just opened it to send a request, which the client then sees reset. Those are
    // left to carry their request (answered with Connection: close) or to the drain's sweep.
    const closed = new Promise<'closed'>((resolve) => net.Server.prototype.close.call(this.server, () => resolve('closed')));
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs).unref()));
    const outcome = await Promise.race([closed, expired]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.server.closeAllConnections();
      this.reviews?.closeAll();
    }
    this.keepAlive.stop();
    this.reviews?.stop();
    return outcome;
  }
}
