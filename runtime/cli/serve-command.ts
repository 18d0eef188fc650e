import { Command, InvalidArgumentError, Option } from 'commander';
import { LOG_LEVELS, type LogLevel } from '../config/log-levels.js';
import type { ServerConfigOverrides } from '../config/server-config.js';

interface ServeFlags {
  config?: string;
  handlers?: string[];
  certDir?: string;
  port?: number;
  healthPort?: number;
  metricsPort?: number;
  bindAddress?: string;
  logLevel?: LogLevel;
  workers?: number;
  dev?: boolean;
}

export function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return port;
}

function workerCount(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new InvalidArgumentError('must be a whole number from 1 to 64');
  return count;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('serve every @Webhook class over HTTPS from one server, with health and metrics endpoints')
    .option('-c, --config <file>', 'ServerConfig YAML file')
    .option('--handlers <modules...>', 'modules exporting `webhooks` (overrides the config)')
    .option('--cert-dir <dir>', 'directory with tls.crt and tls.key (overrides the config)')
    .option('--port <port>', 'webhook HTTPS port (default 9443)', portNumber)
    .option('--health-port <port>', 'health probe port, 0 to disable (default 8081)', portNumber)
    .option('--metrics-port <port>', 'metrics port, 0 to disable (default 8080)', portNumber)
    .option('--bind-address <address>', 'address every listener binds')
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS))
    .option('--workers <count>', 'processes serving the webhook port, sharing it (default 1)', workerCount)
    .option('--dev', 'local use only: self-signed in-memory certificate, loopback only')
    .action(async (flags: ServeFlags) => {
      const [{ serveUntilSignalled }, { ServerConfigError }, { RegistrationError }] = await Promise.all([
        import('../server/serve.js'),
        import('../config/server-config.js'),
        import('../server/registry.js'),
      ]);
      const bind = flags.bindAddress;
      const overrides: ServerConfigOverrides = {
        handlers: flags.handlers,
        webhook: { certDir: flags.certDir, port: flags.port, bindAddress: bind },
        health: { port: flags.healthPort, bindAddress: bind },
        metrics: { port: flags.metricsPort, bindAddress: bind },
        log: flags.logLevel ? { level: flags.logLevel } : undefined,
        workers: flags.workers,
      };
      try {
        await serveUntilSignalled({ configFile: flags.config, overrides, dev: flags.dev });
      } catch (error) {
        const message = error instanceof ServerConfigError || error instanceof RegistrationError ? error.message : (error as Error).stack;
        process.stderr.write(`shaper-gen serve: ${message}\n`);
        process.exit(1);
      }
    });
}
