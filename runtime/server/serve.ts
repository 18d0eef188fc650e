/**
 * `shaper-gen serve`: configuration, handler registration, the server, and
 * the process's signals. What runs in the container.
 */
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { defaultWorkers } from '../config/cpu-limit.js';
import { checkServerConfig, DEFAULT_SERVER_CONFIG, MAX_WORKERS, mergeServerConfig, readServerConfigFile, type ServerConfig, type ServerConfigOverrides } from '../config/server-config.js';
import type { WebhookHandler } from '../webhook/contract.js';
import { LazyKubeClient, loadClientNode } from '../kube/kube-client.js';
import { createLogger } from '../log.js';
import { containProcessFaults } from './process-faults.js';
import { releaseStartupHeap } from './startup-heap.js';
import { importHandlerModules, RegistrationError, registerConversions, registerWebhooks } from './registry.js';
import { WebhookServer, type ListeningAddresses } from './webhook-server.js';
import { WORKER_SLOT_ENV, WorkerPool, type FromWorker, type ToWorker } from './worker-pool.js';
import { DEFAULT_COMPILED_HANDLERS } from '../project-layout.js';
import type { SelfManagedCertificates } from '../tls/self-managed/manager.js';

export interface ServeOptions {
  /** ServerConfig file; without one, the defaults. */
  configFile?: string;
  /** Command-line settings, applied over the file. */
  overrides?: ServerConfigOverrides;
  /** Self-signed in-memory certificate on loopback, for trying things locally. */
  dev?: boolean;
  log?: Logger;
  /** Fields every log line of this process carries (a worker's slot and pid). */
  logBindings?: Record<string, unknown>;
  /**
   * Handlers you construct, with their configuration and dependencies, instead of `new Class()`: each serves in
   * place of the handlers modules' class with its path (and is served as well when no module lists it).
   */
  instances?: readonly WebhookHandler[];
  /** With `dev`: what `ctx.cache` holds, from a YAML file (cache/objects-file.ts), instead of informers on a cluster. */
  objectsFile?: string;
}

export interface RunningServer {
  server: WebhookServer;
  /** With certificates.mode self-managed: the issuer election and the Secret's certificate. */
  certificates?: SelfManagedCertificates;
  addresses: ListeningAddresses;
  config: ServerConfig;
  log: Logger;
}

/**
 * The defaults (workers from the container's CPU limit), the file, then the
 * flags — the merged result checked against the file's schema; --dev binds
 * every listener to loopback and stops without the drain period, which only
 * covers the time a cluster takes to stop routing to a terminating pod (and
 * would hold every restart of `shaper-gen dev`).
 */
async function resolveConfig(options: ServeOptions): Promise<ServerConfig> {
  const fromFile = options.configFile ? await readServerConfigFile(options.configFile) : {};
  const defaults = { ...DEFAULT_SERVER_CONFIG, workers: defaultWorkers(MAX_WORKERS) };
  const config = mergeServerConfig(mergeServerConfig(defaults, fromFile), options.overrides ?? {});
  checkServerConfig(config);
  if (!options.dev) return config;
  const loopback = (bindAddress: string) => ({ bindAddress: bindAddress || '127.0.0.1' });
  return mergeServerConfig(config, {
    webhook: loopback(config.webhook.bindAddress),
    health: loopback(config.health.bindAddress),
    metrics: loopback(config.metrics.bindAddress),
    shutdown: { drainSeconds: 0 },
  });
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  return startWithConfig(await resolveConfig(options), options);
}

async function startWithConfig(config: ServerConfig, options: ServeOptions): Promise<RunningServer> {
  const log = options.log ?? createLogger(config.log.level).child(options.logBindings ?? {});
  const instances = options.instances ?? [];
  if (config.handlers.length === 0 && instances.length === 0 && config.policies.served.length === 0)
    throw new RegistrationError(`no handlers: pass --handlers <compiled module> (e.g. ${DEFAULT_COMPILED_HANDLERS}) or set handlers in the config`);

  // Only --dev reads the project's sources (tinyglobby, yaml), so only --dev loads what that takes.
  if (options.dev) for (const warning of (await import('./stale-handlers.js')).staleHandlersWarnings(config.handlers)) log.warn(warning);
  const classes = await importHandlerModules(config.handlers);
  const origin = config.handlers.join(', ');
  const webhooks = registerWebhooks(classes.webhooks, origin, instances);
  // Only a server that enforces policies the API server does not serve loads the CEL engine (some hundred MiB).
  if (config.policies.served.length > 0) {
    const { registerServedPolicies } = await import('../policy/served/register.js');
    for (const entry of await registerServedPolicies(config.policies, log)) {
      if (webhooks.has(entry.webhook.path)) throw new RegistrationError(`${entry.source} is served at ${entry.webhook.path}, where ${webhooks.get(entry.webhook.path)!.source} is`);
      webhooks.set(entry.webhook.path, entry);
    }
  }
  const conversions = registerConversions(classes.conversions, origin);
  // Only --dev needs certificate generation (and its libraries).
  const certificate = options.dev ? await (await import('../tls/dev-certificate.js')).createDevCertificate() : undefined;
  // The heap budget for reviews is what is left after loading: load ctx.kube's client first when handlers declare
  // the access they use it for (~25 MiB of heap). The object cache (`cache`) has its own client and never loads it.
  const usingKube = [...webhooks.values()].filter((entry) => entry.webhook.rbac.length > 0);
  if (usingKube.length > 0) {
    try {
      loadClientNode();
    } catch (error) {
      throw new RegistrationError(
        `${usingKube.map((entry) => entry.webhook.path).join(', ')} ${usingKube.length === 1 ? 'declares' : 'declare'} rbac, the access ctx.kube uses; ${(error as Error).message}`,
      );
    }
  }
  const objects = options.objectsFile === undefined ? undefined : await (await import('../cache/objects-file.js')).readObjectsFile(options.objectsFile);
  const server = new WebhookServer({ config, webhooks, conversions, log, kube: new LazyKubeClient(), certificate, objects });
  const addresses = await server.start();
  // With several workers the primary manages the certificates (serveWithWorkers), and the workers load certDir.
  const certificates = options.dev || cluster.isWorker ? undefined : await startSelfManaged(config, log, () => server.reloadCertificate());
  releaseStartupHeap();
  return { server, addresses, config, log, certificates };
}

/**
 * Runs until SIGTERM or SIGINT, then drains; a second signal exits at once.
 * An uncaught exception stops it too, without the drain period, and exits 1.
 */
export async function serveUntilSignalled(options: ServeOptions): Promise<void> {
  if (cluster.isWorker) return serveAsWorker(options);
  const config = await resolveConfig(options);
  if (config.workers > 1 && !options.dev) return serveWithWorkers(config);
  const { server, addresses, log } = await startWithConfig(config, options);
  if (options.dev) {
    const base = `https://localhost:${addresses.webhook.port}`;
    process.stderr.write(`shaper-gen serve --dev: ${base} (self-signed; use curl -k)\n`);
  }
  const stop = stopOnFaults(server, log);
  onSignals(() => void stop(false));
}

/**
 * Self-managed certificates, when configured: loaded only then (the API client, the issuer). The first check is not
 * awaited: until it writes the serving certificate into certDir the server is unready, as without a mounted one.
 */
async function startSelfManaged(config: ServerConfig, log: Logger, reload: () => Promise<string | undefined>): Promise<SelfManagedCertificates | undefined> {
  if (config.certificates.mode !== 'self-managed') return undefined;
  const { selfManagedCertificates } = await import('../tls/self-managed/from-config.js');
  const certificates = selfManagedCertificates(config, log, reload);
  void certificates.start();
  return certificates;
}

/** The primary of `workers` > 1: forks the workers, serves probes and metrics, coordinates the drain. */
async function serveWithWorkers(config: ServerConfig): Promise<void> {
  const log = createLogger(config.log.level);
  // The primary issues and writes certDir; each worker's certificate watcher loads it from there (it cannot say when: undefined).
  await startSelfManaged(config, log, () => Promise.resolve(undefined));
  const pool = new WorkerPool(config, log);
  onSignals(() => void pool.shutdown().then(() => process.exit(0)));
  try {
    await pool.start();
  } catch (error) {
    await pool.shutdown();
    throw new RegistrationError((error as Error).message);
  }
}

/**
 * One of `workers` processes: the webhook port only (the primary shares its socket, and serves probes and
 * metrics); it answers the primary's readiness and metrics questions and drains when the primary says so.
 */
async function serveAsWorker(options: ServeOptions): Promise<void> {
  const slot = process.env[WORKER_SLOT_ENV] ?? '?';
  const overrides = { ...options.overrides, health: { ...options.overrides?.health, port: 0 }, metrics: { ...options.overrides?.metrics, port: 0 } };
  const { server, log } = await startServer({ ...options, overrides, logBindings: { worker: Number(slot), pid: process.pid } });
  // Constructing one registers prom-client's listener for the primary's metric requests; these are what it reports.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([server.metrics.registry]);
  const stop = stopOnFaults(server, log);
  process.on('message', (message: ToWorker) => {
    if (message.type === 'shutdown') void stop(false);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- other IPC messages (prom-client's metric requests) arrive here too
    else if (message.type === 'readyz') void server.readiness(message.verbose).then(({ status, text }) => process.send?.({ type: 'readyz', id: message.id, status, text } satisfies FromWorker));
  });
  // Signals are the primary's to handle: a terminal's Ctrl-C reaches the whole process group.
  process.on('SIGTERM', () => undefined);
  process.on('SIGINT', () => undefined);
  process.send?.({ type: 'serving' } satisfies FromWorker);
}

/** The first SIGTERM or SIGINT runs `stop`; a second one exits at once. */
function onSignals(stop: () => void): void {
  let signalled = false;
  const onSignal = () => {
    if (signalled) process.exit(130);
    signalled = true;
    stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * Contains faults outside requests; returns `stop(skipDrain)`, which shuts the server down and exits —
 * 0 after a signal or the primary's word, 1 after an uncaught exception (which stops without the drain).
 */
function stopOnFaults(server: WebhookServer, log: Logger): (skipDrain: boolean) => Promise<void> {
  let exitCode = 0;
  const stop = (skipDrain: boolean) =>
    server.shutdown({ skipDrain }).then(
      () => process.exit(exitCode),
      () => process.exit(1),
    );
  containProcessFaults({
    server,
    log,
    onUncaughtException: () => {
      exitCode = 1;
      void stop(true);
    },
  });
  return stop;
}
