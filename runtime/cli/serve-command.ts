/**
 * `shaper-gen serve`'s flags. Each flag sets ServerConfig settings, and the
 * flags are checked against the config file's own schema, so a bad value is
 * reported in one line naming the flag and what it allows.
 */
import { Command, InvalidArgumentError } from 'commander';
import { LOG_LEVELS } from '../config/log-levels.js';
import { schemaAt } from '../config/schema.js';
import { checkServerConfig, DEFAULT_SERVER_CONFIG, SERVER_CONFIG_SCHEMA, type ServerConfigOverrides } from '../config/server-config.js';
import { ConfigError, formatProblem, type Problem, type ProblemPath } from '../problems.js';

interface SettingFlag {
  /** Commander's flag syntax. */
  readonly flag: string;
  readonly description: string;
  /** The settings it sets. */
  readonly settings: readonly ProblemPath[];
}

const SETTING_FLAGS: readonly SettingFlag[] = [
  { flag: '--handlers <modules...>', description: 'modules exporting `webhooks` (overrides the config)', settings: [['handlers']] },
  { flag: '--cert-dir <dir>', description: 'directory with tls.crt and tls.key (overrides the config)', settings: [['webhook', 'certDir']] },
  { flag: '--port <port>', description: `webhook HTTPS port (default ${DEFAULT_SERVER_CONFIG.webhook.port})`, settings: [['webhook', 'port']] },
  { flag: '--health-port <port>', description: `health probe port, 0 to disable (default ${DEFAULT_SERVER_CONFIG.health.port})`, settings: [['health', 'port']] },
  { flag: '--metrics-port <port>', description: `metrics port, 0 to disable (default ${DEFAULT_SERVER_CONFIG.metrics.port})`, settings: [['metrics', 'port']] },
  {
    flag: '--bind-address <address>',
    description: 'address every listener binds',
    settings: [
      ['webhook', 'bindAddress'],
      ['health', 'bindAddress'],
      ['metrics', 'bindAddress'],
    ],
  },
  { flag: '--log-level <level>', description: `log level: ${LOG_LEVELS.join(', ')} (default ${DEFAULT_SERVER_CONFIG.log.level})`, settings: [['log', 'level']] },
  { flag: '--workers <count>', description: "processes serving the webhook port, sharing it (default: the container's CPU limit in cores, else 1)", settings: [['workers']] },
];

interface ServeFlags {
  config?: string;
  dev?: boolean;
  objects?: string;
  [flag: string]: unknown;
}

export function serveCommand(): Command {
  const command = new Command('serve')
    .description('serve every @Webhook class over HTTPS from one server, with health and metrics endpoints')
    .option('-c, --config <file>', 'ServerConfig YAML file');
  for (const { flag, description } of SETTING_FLAGS) command.option(flag, description);
  command
    .option('--dev', 'local use only: self-signed in-memory certificate, loopback only, no drain period on stop')
    .option('--objects <file>', 'with --dev: what ctx.cache holds, from a YAML file mapping resources (profiles.shaper.io) to lists of objects, instead of a cluster');
  return command.action(async (flags: ServeFlags) => {
    try {
      if (flags.objects !== undefined && !flags.dev) fail(['--objects needs --dev: in a cluster, ctx.cache reads the API server']);
      const overrides = settingsFromFlags(flags);
      const [{ serveUntilSignalled }, { RegistrationError }] = await Promise.all([import('../server/serve.js'), import('../server/registry.js')]);
      try {
        await serveUntilSignalled({ configFile: flags.config, overrides, dev: flags.dev, objectsFile: flags.objects });
      } catch (error) {
        if (error instanceof RegistrationError) fail([error.message]);
        throw error;
      }
    } catch (error) {
      if (error instanceof ConfigError) fail(error.problems.map((problem) => formatProblem(problem)));
      fail([error instanceof Error ? (error.stack ?? error.message) : String(error)]);
    }
  });
}

/** The settings the flags give, checked against the config schema; a problem names the flag. */
export function settingsFromFlags(flags: Readonly<Record<string, unknown>>): ServerConfigOverrides {
  const settings: Record<string, unknown> = {};
  const problems: Problem[] = [];
  for (const { flag, settings: paths } of SETTING_FLAGS) {
    const name = flag.split(' ')[0]!;
    const value = flags[camelCase(name)];
    if (value === undefined) continue;
    const problem = flagProblem(paths, value);
    if (problem !== undefined) problems.push({ path: [name], message: problem });
    else for (const path of paths) setAt(settings, path, typed(value, path));
  }
  if (problems.length > 0) throw new ConfigError(problems, 'flags');
  return checkServerConfig(settings);
}

/** A commander argument parser for a flag that sets `path` (for commands that pass it on to serve), by the same schema. */
export function settingArgument(path: ProblemPath): (text: string) => unknown {
  return (text) => {
    const problem = flagProblem([path], text);
    if (problem !== undefined) throw new InvalidArgumentError(problem);
    return typed(text, path);
  };
}

/** What the schema says about a flag's value for its settings: one message, even when it sets several. */
function flagProblem(paths: readonly ProblemPath[], value: unknown): string | undefined {
  const document: Record<string, unknown> = {};
  for (const path of paths) setAt(document, path, typed(value, path));
  try {
    checkServerConfig(document);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.problems[0]!.message;
    throw error;
  }
}

/** A flag's text as the setting's type: a number for a numeric setting when it reads as one. */
function typed(value: unknown, path: ProblemPath): unknown {
  const type = schemaAt(SERVER_CONFIG_SCHEMA, path)?.type;
  const numeric = (type === 'integer' || type === 'number') && typeof value === 'string' && /^[+-]?\d+(\.\d+)?$/.test(value.trim());
  return numeric ? Number(value) : value;
}

function setAt(target: Record<string, unknown>, path: ProblemPath, value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = value;
}

function camelCase(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function fail(lines: readonly string[]): never {
  process.stderr.write(lines.map((line) => `shaper-gen serve: ${line}\n`).join(''));
  process.exit(1);
}
