/**
 * One server instance for every registered webhook: the HTTPS admission
 * listener, plus plain-HTTP health and metrics listeners, and an orderly
 * shutdown. Admission requests go straight from node:https to their endpoint
 * by an exact path lookup; everything else (unknown paths, user routes) goes
 * to the Express app.
 */
import { MemoryBudget } from './memory-budget.js';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls, { type SecureContextOptions } from 'node:tls';
import type express from 'express';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { KubeClient } from '../contract.js';
import type { ListenerConfig, ServerConfig } from '../config/server-config.js';
import { CertificateWatcher } from '../tls/certificate-watcher.js';
import { nodeCipherList } from '../tls/cipher-suites.js';
import { InformerCache } from '../cache/informer-cache.js';
import type { ObjectSource } from '../cache/object-source.js';
import { admissionEndpoint, type RawHandler, type RegisteredWebhook } from './admission-endpoint.js';
import { createPlainApp, evaluateChecks, type HealthCheck } from './health.js';
import { ProbeListener, type ProbeAnswer } from './probe-listener.js';
import { FirstRequestDeadline } from './first-request-deadline.js';
import { KeepAliveDrain } from './keep-alive-drain.js';
import { ServerMetrics } from './metrics.js';

/** How long a client may hold a webhook-port socket without doing its part (README, "Slow and idle clients"). */
export const HANDSHAKE_TIMEOUT_MS = 10_000;
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
export const KEEP_ALIVE_TIMEOUT_MS = 120_000;

/** A readiness probe's answer must come back within the kubelet's default 1 s probe timeout. */
const PROBE_RELAY_MS = 800;

export interface WebhookServerOptions {
  readonly config: ServerConfig;
  readonly webhooks: ReadonlyMap<string, RegisteredWebhook>;
  readonly log: Logger;
  readonly kube: KubeClient;
  /** A fixed certificate (serve --dev, tests) instead of watching certDir. */
  readonly certificate?: SecureContextOptions;
  readonly metrics?: ServerMetrics;
  /** Heap for reviews in flight; by default what V8's heap limit leaves. */
  readonly memory?: MemoryBudget;
  /** What `ctx.cache` reads from; by default informers for the resources the webhooks declare in `cache`. */
  readonly objects?: ObjectSource;
}

export interface ShutdownOptions {
  /** Stop accepting connections at once instead of serving on for drainSeconds (after an uncaught exception). */
  readonly skipDrain?: boolean;
}

export interface ListeningAddresses {
  webhook: AddressInfo;
  health?: AddressInfo;
  metrics?: AddressInfo;
}

export class WebhookServer {
  /** The Express app behind the webhook port: add your own routes here. Admission paths never reach it. */
  readonly app: Express = createPlainApp();
  readonly metrics: ServerMetrics;
  private readonly informers: InformerCache | undefined;
  private readonly endpoints = new Map<string, RawHandler>();
  private readonly https: https.Server;
  private readonly keepAlive: KeepAliveDrain;
  private readonly firstRequest: FirstRequestDeadline;
  private readonly plain: http.Server[] = [];
  private probes: ProbeListener | undefined;
  private readonly watcher: CertificateWatcher | undefined;
  private shuttingDown = false;
  private stopped: Promise<void> | undefined;
  private endDrain: (() => void) | undefined;

  constructor(private readonly options: WebhookServerOptions) {
    const { config, log } = options;
    this.metrics = options.metrics ?? new ServerMetrics();
    if (!options.objects) {
      const resources = InformerCache.resourcesOf([...options.webhooks.values()].map((entry) => entry.webhook));
      this.informers = new InformerCache(resources, options.kube, log, (resource, source) => this.metrics.cacheRead(resource, source));
    }
    const objects = options.objects ?? this.informers!;
    const deps = { log, kube: options.kube, objects, metrics: this.metrics, maxRequestBytes: config.webhook.maxRequestBytes, memory: options.memory ?? MemoryBudget.fromHeap() };
    for (const [path, entry] of options.webhooks) this.endpoints.set(path, admissionEndpoint(entry, deps));

    const clientCA = config.webhook.clientCAName;
    // Node resets both whenever the certificate is replaced, unless given again (setSecureContext).
    const protocol = {
      minVersion: config.webhook.tlsMinVersion === '1.3' ? 'TLSv1.3' : 'TLSv1.2',
      ciphers: nodeCipherList(config.webhook.cipherSuites),
    } as const satisfies SecureContextOptions;
    this.https = https.createServer(
      {
        ...protocol,
        requestCert: clientCA !== '',
        rejectUnauthorized: clientCA !== '',
        // A peer that connects and never completes the handshake gives its socket back within 10 s (Node's default: 120 s).
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
        // Enforce headersTimeout and requestTimeout within a second of their values (Node's default check interval: 30 s).
        connectionsCheckingInterval: 1000,
        ...options.certificate,
      },
      (req, res) => this.route(req, res),
    );
    // The API server keeps connections open; keep them longer than its idle timeout (90 s), so it never sends on a socket we are closing.
    this.https.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // The API server sends a whole request at once: a client that trickles headers or a body is cut off.
    this.https.headersTimeout = HEADERS_TIMEOUT_MS;
    this.https.requestTimeout = REQUEST_TIMEOUT_MS;
    this.https.on('tlsClientError', (error) => log.debug({ err: error }, 'TLS handshake failed'));
    this.firstRequest = new FirstRequestDeadline(this.https, HEADERS_TIMEOUT_MS);
    this.keepAlive = new KeepAliveDrain(this.https);

    if (options.certificate) {
      this.metrics.certificateExpiry.set(notAfterOf(options.certificate).getTime() / 1000);
    } else {
      const dir = config.webhook.certDir;
      this.watcher = new CertificateWatcher(
        { certFile: `${dir}/${config.webhook.certName}`, keyFile: `${dir}/${config.webhook.keyName}`, clientCAFile: clientCA ? `${dir}/${clientCA}` : undefined },
        {
          log,
          pollMs: config.webhook.certPollSeconds * 1000,
          onLoad: (certificate) => {
            this.https.setSecureContext({ ...protocol, ...certificate.context });
            this.metrics.certificateReloads.inc();
            this.metrics.certificateExpiry.set(certificate.notAfter.getTime() / 1000);
          },
          onError: () => this.metrics.certificateReloadErrors.inc(),
        },
      );
    }
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    this.firstRequest.track(req);
    this.keepAlive.track(req, res);
    const url = req.url ?? '/';
    const query = url.indexOf('?'); // the API server appends ?timeout=…
    const endpoint = this.endpoints.get(query === -1 ? url : url.slice(0, query));
    if (endpoint) endpoint(req, res);
    // Express's final handler, so that routes users add to `app` at any time come first.
    else this.app(req as express.Request, res as express.Response, () => notFound(req, res));
  }

  /** Paths the chart expects that no registered class serves. */
  missingPaths(): string[] {
    return this.options.config.expectedPaths.filter((path) => !this.endpoints.has(path));
  }

  async start(): Promise<ListeningAddresses> {
    const { config, log } = this.options;
    await this.watcher?.start();
    this.informers?.start();
    const webhook = await listen(this.https, config.webhook);
    const addresses: ListeningAddresses = { webhook };

    const metricsApp = createPlainApp();
    metricsApp.get('/metrics', (_req, res) => {
      this.metrics.registry.metrics().then(
        (text) => res.type(this.metrics.registry.contentType).send(text),
        (error: Error) => res.status(500).type('text/plain').send(error.message),
      );
    });
    const sharedPort = config.health.port !== 0 && config.health.port === config.metrics.port;
    if (config.health.port !== 0) {
      this.probes = await ProbeListener.start({
        port: config.health.port,
        bindAddress: config.health.bindAddress,
        stallMs: config.health.stallSeconds * 1000,
        relayMs: PROBE_RELAY_MS,
        answer: (path, verbose) => this.probeAnswer(path, verbose, sharedPort),
      });
      addresses.health = this.probes.address;
    }
    if (config.metrics.port !== 0 && !sharedPort) addresses.metrics = await this.listenPlain(metricsApp, config.metrics);
    if (sharedPort) addresses.metrics = addresses.health;

    log.info(
      { webhook: webhook.port, health: addresses.health?.port, metrics: addresses.metrics?.port, paths: [...this.endpoints.keys()] },
      `serving ${this.endpoints.size} webhook(s)`,
    );
    const missing = this.missingPaths();
    if (missing.length > 0) log.error({ missing }, `no handler for ${missing.join(', ')}: the chart's webhook configurations call these paths; refusing readiness`);
    return addresses;
  }

  /** What the health port's worker asks of this thread: readiness, and metrics when they share the port. */
  private async probeAnswer(path: string, verbose: boolean, withMetrics: boolean): Promise<ProbeAnswer> {
    if (path === '/readyz') {
      const { status, text } = await this.readiness(verbose);
      return { status, contentType: 'text/plain; charset=utf-8', body: text };
    }
    if (path === '/metrics' && withMetrics) return { status: 200, contentType: this.metrics.registry.contentType, body: await this.metrics.registry.metrics() };
    return { status: 404, contentType: 'text/plain; charset=utf-8', body: `no probe at ${path}\n` };
  }

  /** /readyz's answer: 200 when every check passes; the text lists them when verbose or failing. */
  readiness(verbose: boolean): Promise<{ status: number; text: string }> {
    return evaluateChecks('readyz', this.readinessChecks(), verbose);
  }

  private readinessChecks(): HealthCheck[] {
    return [
      { name: 'shutdown', run: () => (this.shuttingDown ? 'shutting down' : undefined) },
      {
        name: 'certificate',
        run: () => (this.options.certificate || this.watcher?.current ? undefined : `no serving certificate loaded from ${this.options.config.webhook.certDir}`),
      },
      {
        name: 'handlers',
        run: () => {
          const missing = this.missingPaths();
          return missing.length === 0 ? undefined : `no handler registered for ${missing.join(', ')}`;
        },
      },
      { name: 'webhook-listener', run: () => this.probeListener() },
      // Only when some webhook declares `cache`: ready once every informer has listed its resource.
      ...(this.informers?.resources.length ? [{ name: 'cache', run: () => this.informers!.problem() }] : []),
    ];
  }

  /** A real TLS handshake with our own listener: proves it accepts connections with the loaded certificate. */
  private probeListener(): Promise<string | undefined> {
    const address = this.https.address() as AddressInfo | null;
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
      socket.once('error', (error: NodeJS.ErrnoException) =>
        done(this.options.config.webhook.clientCAName && error.code !== 'ECONNREFUSED' ? undefined : `TLS handshake with ${host}:${address.port} failed: ${error.message}`),
      );
      socket.once('timeout', () => done(`TLS handshake with ${host}:${address.port} timed out`));
    });
  }

  private async listenPlain(app: Express, config: ListenerConfig): Promise<AddressInfo> {
    const server = http.createServer(app);
    this.plain.push(server);
    return listen(server, config);
  }

  /**
   * Graceful stop: unready at once, keep serving for drainSeconds (with `Connection: close`, see KeepAliveDrain),
   * then finish requests in flight (bounded) and close.
   */
  shutdown(options: ShutdownOptions = {}): Promise<void> {
    this.stopped ??= this.drainAndClose(options.skipDrain === true);
    if (options.skipDrain) this.endDrain?.();
    return this.stopped;
  }

  private async drainAndClose(skipDrain: boolean): Promise<void> {
    const { config, log } = this.options;
    this.shuttingDown = true;
    this.keepAlive.start();
    if (skipDrain) {
      log.info({ timeoutSeconds: config.shutdown.timeoutSeconds }, 'shutting down: unready, not accepting connections, finishing requests in flight');
    } else {
      log.info({ drainSeconds: config.shutdown.drainSeconds, timeoutSeconds: config.shutdown.timeoutSeconds }, 'shutting down: unready, draining');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, config.shutdown.drainSeconds * 1000).unref();
        this.endDrain = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const closed = new Promise<void>((resolve) => this.https.close(() => resolve()));
    this.https.closeIdleConnections();
    const timer = delay(config.shutdown.timeoutSeconds * 1000).then(() => 'timeout' as const);
    if ((await Promise.race([closed, timer])) === 'timeout') {
      log.warn('requests still in flight at the shutdown timeout; closing their connections');
      this.https.closeAllConnections();
    }
    this.keepAlive.stop();
    this.watcher?.stop();
    await this.informers?.stop();
    await this.probes?.close();
    await Promise.all(
      this.plain.map((server) => {
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        return done;
      }),
    );
    log.info('stopped');
  }
}

function notFound(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0];
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: `no webhook is served at ${path}` });
  res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

async function listen(server: http.Server | https.Server, config: ListenerConfig): Promise<AddressInfo> {
  server.listen(config.port, config.bindAddress || undefined);
  await once(server, 'listening');
  return server.address() as AddressInfo;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function notAfterOf(context: SecureContextOptions): Date {
  const cert = Array.isArray(context.cert) ? context.cert[0] : context.cert;
  return new Date(new X509Certificate(cert as string | Buffer).validTo);
}
