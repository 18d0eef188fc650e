/**
 * One server instance for every registered webhook: routes the webhook port's
 * requests — admission paths straight to their endpoint by an exact path
 * lookup, everything else (unknown paths, user routes) to the Express app —
 * and owns the listeners (webhook-listener, health-listener,
 * metrics-listener), the certificate (tls-options), readiness and the drain.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { countOf } from '../count-words.js';
import type express from 'express';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { KubeClient } from '../webhook/contract.js';
import type { ServerConfig } from '../config/server-config.js';
import { InformerCache } from '../cache/informer-cache.js';
import type { ObjectSource } from '../cache/object-source.js';
import type { ApiConnection } from '../kube/api-connection.js';
import type { ConversionsByKind } from '../conversion/convert.js';
import { admissionEndpoint, type Endpoint } from './admission-endpoint.js';
import { conversionEndpoint } from './conversion-endpoint.js';
import { Drain } from './drain.js';
import { createPlainApp } from './express-app.js';
import { evaluateChecks, type HealthCheck } from './health.js';
import { startHealthListener } from './health-listener.js';
import { sharedProbePort } from './listen.js';
import { MemoryBudget } from './memory-budget.js';
import { ServerMetrics } from './metrics.js';
import { startMetricsListener, type MetricsListener } from './metrics-listener.js';
import type { ProbeListener } from './probe-listener.js';
import type { RegisteredWebhook } from './registry.js';
import { servingCertificate, tlsServerOptions, type ServingCertificate } from './tls-options.js';
import { HANDSHAKE_TIMEOUT_MS, WebhookListener } from './webhook-listener.js';
import { writeResponse } from './write-response.js';

export interface WebhookServerOptions {
  readonly config: ServerConfig;
  readonly webhooks: ReadonlyMap<string, RegisteredWebhook>;
  /** Conversion paths and the converters each serves, by kind. */
  readonly conversions?: ReadonlyMap<string, ConversionsByKind>;
  readonly log: Logger;
  readonly kube: KubeClient;
  /** A fixed certificate (serve --dev, tests) instead of watching certDir. */
  readonly certificate?: SecureContextOptions;
  readonly metrics?: ServerMetrics;
  /** Heap for reviews in flight; by default what V8's heap limit leaves. */
  readonly memory?: MemoryBudget;
  /** What `ctx.cache` reads from; by default informers for the resources the webhooks declare in `cache`. */
  readonly objects?: ObjectSource;
  /** The informers' API server connection; by default from KUBECONFIG, ~/.kube/config or the in-cluster ServiceAccount. */
  readonly apiConnection?: () => ApiConnection;
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
  private expressApp: Express | undefined;
  readonly metrics: ServerMetrics;
  private readonly informers: InformerCache | undefined;
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly listener: WebhookListener;
  private readonly certificate: ServingCertificate;
  private readonly drain: Drain;
  private probes: ProbeListener | undefined;
  private metricsListener: MetricsListener | undefined;

  constructor(private readonly options: WebhookServerOptions) {
    const { config, log } = options;
    this.metrics = options.metrics ?? new ServerMetrics({ gcDurations: config.metrics.gcDurations });
    if (!options.objects) {
      const resources = InformerCache.resourcesOf([...options.webhooks.values()].map((entry) => entry.webhook));
      this.informers = new InformerCache(resources, log, (resource, source) => this.metrics.cacheRead(resource, source), options.apiConnection);
    }
    const objects = options.objects ?? this.informers!;
    const deps = { log, kube: options.kube, objects, metrics: this.metrics, maxRequestBytes: config.webhook.maxRequestBytes, memory: options.memory ?? MemoryBudget.fromHeap() };
    for (const [path, entry] of options.webhooks) this.endpoints.set(path, admissionEndpoint(entry, deps));
    for (const [path, conversions] of options.conversions ?? []) this.endpoints.set(path, conversionEndpoint(path, conversions, deps));

    const tls = tlsServerOptions(config.webhook, HANDSHAKE_TIMEOUT_MS, options.certificate);
    const routes = {
      node: (req: IncomingMessage, res: ServerResponse) => this.route(req, res),
      review: (path: string) => this.endpoints.get(path)?.review,
      maxBodyBytes: config.webhook.maxRequestBytes,
    };
    this.listener = new WebhookListener(tls, routes, log, {
      mtls: config.webhook.clientCAName !== '',
      bounds: config.webhook,
      onShed: (bound) => {
        this.metrics.shedConnections.inc({ bound });
        log.debug({ bound }, 'connection closed at a bound');
      },
    });
    this.certificate = servingCertificate(this.listener.server, config.webhook, { log, metrics: this.metrics, certificate: options.certificate });
    this.drain = new Drain({ log, shutdown: config.shutdown, listener: this.listener, release: () => this.release() });
  }

  /** The Express app behind the webhook port: add your own routes here. Admission paths never reach it. Made on first use. */
  get app(): Express {
    return (this.expressApp ??= createPlainApp());
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const query = url.indexOf('?'); // the API server appends ?timeout=…
    const endpoint = this.endpoints.get(query === -1 ? url : url.slice(0, query));
    if (endpoint) endpoint.node(req, res);
    // Express's final handler, so that routes users add to `app` at any time come first.
    else if (this.expressApp) this.expressApp(req as express.Request, res as express.Response, () => notFound(req, res));
    else notFound(req, res);
  }

  /** Loads certDir now (self-managed certificates have just written it); the serial of the certificate served then. */
  reloadCertificate(): Promise<string | undefined> {
    return this.certificate.reload();
  }

  /** Paths the chart expects that no registered class serves. */
  missingPaths(): string[] {
    return this.options.config.expectedPaths.filter((path) => !this.endpoints.has(path));
  }

  async start(): Promise<ListeningAddresses> {
    const { config, log } = this.options;
    await this.certificate.start();
    this.informers?.start();
    const addresses: ListeningAddresses = { webhook: await this.listener.listen(config.webhook) };
    const shared = sharedProbePort(config);
    if (config.health.port !== 0) {
      this.probes = await startHealthListener({ config: config.health, readiness: (verbose) => this.readiness(verbose), metrics: shared ? this.metrics : undefined });
      addresses.health = this.probes.address;
    }
    if (shared) addresses.metrics = addresses.health;
    else if (config.metrics.port !== 0) {
      this.metricsListener = await startMetricsListener(config.metrics, this.metrics);
      addresses.metrics = this.metricsListener.address;
    }

    const conversionPaths = [...(this.options.conversions?.keys() ?? [])];
    log.info(
      { webhook: addresses.webhook.port, health: addresses.health?.port, metrics: addresses.metrics?.port, paths: [...this.endpoints.keys()] },
      `serving ${countOf(this.options.webhooks.size, 'webhook')}${conversionPaths.length > 0 ? ` and conversions at ${conversionPaths.join(', ')}` : ''}`,
    );
    const missing = this.missingPaths();
    if (missing.length > 0) log.error({ missing }, `no handler for ${missing.join(', ')}: the chart's webhook configurations call these paths; refusing readiness`);
    return addresses;
  }

  /** /readyz's answer: 200 when every check passes; the text lists them when verbose or failing. */
  readiness(verbose: boolean): Promise<{ status: number; text: string }> {
    return evaluateChecks('readyz', this.readinessChecks(), verbose);
  }

  private readinessChecks(): HealthCheck[] {
    return [
      { name: 'shutdown', run: () => (this.drain.started ? 'shutting down' : undefined) },
      { name: 'certificate', run: () => (this.certificate.loaded() ? undefined : `no serving certificate loaded from ${this.options.config.webhook.certDir}`) },
      {
        name: 'handlers',
        run: () => {
          const missing = this.missingPaths();
          return missing.length === 0 ? undefined : `no handler registered for ${missing.join(', ')}`;
        },
      },
      { name: 'webhook-listener', run: () => this.listener.handshake() },
      // Only when some webhook declares `cache`: ready once every informer has listed its resource.
      ...(this.informers?.resources.length ? [{ name: 'cache', run: () => this.informers!.problem() }] : []),
    ];
  }

  /** Graceful stop (see drain.ts); resolves once everything is closed. */
  shutdown(options: ShutdownOptions = {}): Promise<void> {
    return this.drain.run(options.skipDrain === true);
  }

  private async release(): Promise<void> {
    this.certificate.stop();
    await this.informers?.stop();
    await this.probes?.close();
    await this.metricsListener?.close();
  }
}

function notFound(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0];
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: `no webhook is served at ${path}` });
  writeResponse(res, 404, 'application/json; charset=utf-8', body);
}
