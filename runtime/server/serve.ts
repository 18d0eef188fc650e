/**
 * `shaper-gen serve`: configuration, handler registration, the server, and
 * the process's signals. What runs in the container.
 */
import { rbacRulesOf } from '../rbac-options.js';
import type { Logger } from 'pino';
import { DEFAULT_SERVER_CONFIG, loadServerConfig, mergeServerConfig, type ServerConfig, type ServerConfigOverrides } from '../config/server-config.js';
import { LazyKubeClient } from '../kube-client.js';
import { createLogger } from '../log.js';
import { containProcessFaults } from './process-faults.js';
import { staleHandlersWarnings } from './stale-handlers.js';
import { importWebhookClasses, RegistrationError, registerWebhooks } from './registry.js';
import { WebhookServer, type ListeningAddresses } from './webhook-server.js';

export interface ServeOptions {
  /** ServerConfig file; without one, the defaults. */
  configFile?: string;
  /** Command-line settings, applied over the file. */
  overrides?: ServerConfigOverrides;
  /** Self-signed in-memory certificate on loopback, for trying things locally. */
  dev?: boolean;
  log?: Logger;
}

export interface RunningServer {
  server: WebhookServer;
  addresses: ListeningAddresses;
  config: ServerConfig;
  log: Logger;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const fromFile = options.configFile ? await loadServerConfig(options.configFile) : DEFAULT_SERVER_CONFIG;
  let config = mergeServerConfig(fromFile, options.overrides ?? {});
  if (options.dev) {
    const loopback = (bindAddress: string) => ({ bindAddress: bindAddress || '127.0.0.1' });
    config = mergeServerConfig(config, { webhook: loopback(config.webhook.bindAddress), health: loopback(config.health.bindAddress), metrics: loopback(config.metrics.bindAddress) });
  }
  const log = options.log ?? createLogger(config.log.level);
  if (config.handlers.length === 0) throw new RegistrationError('no handlers: pass --handlers <compiled module> (e.g. dist/webhooks.generated.js) or set handlers in the config');

  if (options.dev) for (const warning of staleHandlersWarnings(config.handlers)) log.warn(warning);
  const webhooks = registerWebhooks(await importWebhookClasses(config.handlers), config.handlers.join(', '));
  // Only --dev needs certificate generation (and its libraries).
  const certificate = options.dev ? await (await import('../tls/dev-certificate.js')).createDevCertificate() : undefined;
  // The heap budget for reviews is what is left after loading: load the API client first when handlers use it (~25 MiB of heap).
  if ([...webhooks.values()].some((entry) => rbacRulesOf(entry.webhook).length > 0)) await import('@kubernetes/client-node');
  const server = new WebhookServer({ config, webhooks, log, kube: new LazyKubeClient(), certificate });
  const addresses = await server.start();
  return { server, addresses, config, log };
}

/**
 * Runs until SIGTERM or SIGINT, then drains; a second signal exits at once.
 * An uncaught exception stops it too, without the drain period, and exits 1.
 */
export async function serveUntilSignalled(options: ServeOptions): Promise<void> {
  const { server, addresses, log } = await startServer(options);
  if (options.dev) {
    const base = `https://localhost:${addresses.webhook.port}`;
    process.stderr.write(`shaper-gen serve --dev: ${base} (self-signed; use curl -k)\n`);
  }
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
  let signalled = false;
  const onSignal = () => {
    if (signalled) process.exit(130);
    signalled = true;
    void stop(false);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
