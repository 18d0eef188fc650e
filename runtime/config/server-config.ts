/**
 * The server's YAML configuration (kind ServerConfig, camelCase keys as in
 * Kubernetes objects), its defaults and its validation. Ports follow the
 * kubebuilder convention: webhook 9443, health 8081, metrics 8080.
 */
import { LOG_LEVELS, type LogLevel } from './log-levels.js';
import { readFile } from 'node:fs/promises';
import { CIPHER_SUITE_NAMES } from '../tls/cipher-suites.js';
import { readYamlConfig, type Schema } from '../yaml-schema.js';

export const SERVER_CONFIG_API_VERSION = 'shaper-gen.io/v1alpha1';
export const SERVER_CONFIG_KIND = 'ServerConfig';
export const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;

export interface ListenerConfig {
  /** Address to bind; empty means every interface. */
  bindAddress: string;
  /** 0 disables the listener (health and metrics only). */
  port: number;
}

export interface ServerConfig {
  /** Modules (paths relative to the working directory, or package specifiers) that export `webhooks`: the classes to serve. */
  handlers: string[];
  /** Every path the chart's webhook configurations call; the server stays unready until it serves each. */
  expectedPaths: string[];
  /** Processes serving the webhook port (node:cluster, one shared socket); above 1 a primary process runs probes and metrics. */
  workers: number;
  webhook: ListenerConfig & {
    certDir: string;
    certName: string;
    keyName: string;
    /** File in certDir with the CA that signs client certificates; set it to require mTLS. */
    clientCAName: string;
    tlsMinVersion: '1.2' | '1.3';
    /** TLS 1.2 cipher suites (IANA or OpenSSL names); empty: ECDHE with AES-GCM or ChaCha20-Poly1305. TLS 1.3 suites are fixed. */
    cipherSuites: string[];
    maxRequestBytes: number;
    /** Fallback poll for certificate changes, besides watching the directory. */
    certPollSeconds: number;
  };
  health: ListenerConfig & {
    /** Liveness fails once the main thread has not run for this long (probes are answered from a worker thread). */
    stallSeconds: number;
  };
  metrics: ListenerConfig;
  shutdown: {
    /** After SIGTERM: unready at once, keep serving this long so endpoints drop the pod. */
    drainSeconds: number;
    /** Then: stop accepting, and wait at most this long for requests in flight. */
    timeoutSeconds: number;
  };
  log: { level: LogLevel };
}

export const DEFAULT_SERVER_CONFIG: ServerConfig = {
  handlers: [],
  expectedPaths: [],
  workers: 1,
  webhook: {
    bindAddress: '',
    port: 9443,
    certDir: '/tmp/k8s-webhook-server/serving-certs',
    certName: 'tls.crt',
    keyName: 'tls.key',
    clientCAName: '',
    tlsMinVersion: '1.2',
    cipherSuites: [],
    maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES,
    certPollSeconds: 10,
  },
  health: { bindAddress: '', port: 8081, stallSeconds: 20 },
  metrics: { bindAddress: '', port: 8080 },
  shutdown: { drainSeconds: 5, timeoutSeconds: 20 },
  log: { level: 'info' },
};

const port: Schema = { type: 'integer', min: 0, max: 65535 };
const bindAddress: Schema = { type: 'string' };
const fileName: Schema = { type: 'string', pattern: /^[^/]*$/, hint: 'must be a file name inside certDir, without slashes' };

const SCHEMA = {
  type: 'object',
  fields: {
    apiVersion: { type: 'enum', values: [SERVER_CONFIG_API_VERSION] },
    kind: { type: 'enum', values: [SERVER_CONFIG_KIND] },
    handlers: { type: 'list', items: { type: 'string' } },
    expectedPaths: { type: 'list', items: { type: 'string', pattern: /^\/[A-Za-z0-9\-._~/]*$/, hint: 'must be an absolute URL path' } },
    workers: { type: 'integer', min: 1, max: 64 },
    webhook: {
      type: 'object',
      fields: {
        bindAddress,
        port,
        certDir: { type: 'string' },
        certName: fileName,
        keyName: fileName,
        clientCAName: fileName,
        tlsMinVersion: { type: 'enum', values: ['1.2', '1.3'] },
        cipherSuites: { type: 'list', items: { type: 'enum', values: CIPHER_SUITE_NAMES } },
        maxRequestBytes: { type: 'integer', min: 1024, max: 64 * 1024 * 1024 },
        certPollSeconds: { type: 'integer', min: 1, max: 3600 },
      },
    },
    health: { type: 'object', fields: { bindAddress, port, stallSeconds: { type: 'integer', min: 1, max: 600 } } },
    metrics: { type: 'object', fields: { bindAddress, port } },
    shutdown: {
      type: 'object',
      fields: { drainSeconds: { type: 'integer', min: 0, max: 600 }, timeoutSeconds: { type: 'integer', min: 0, max: 600 } },
    },
    log: { type: 'object', fields: { level: { type: 'enum', values: LOG_LEVELS } } },
  },
} as const satisfies Schema;

export class ServerConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid server configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ServerConfigError';
  }
}

/** Parses a ServerConfig document; every problem is reported as `file:line:col: message`. */
export function parseServerConfig(text: string, file = 'config'): ServerConfig {
  const { value, problems } = readYamlConfig(text, SCHEMA);
  const messages = problems.map((p) => `${file}:${p.line}:${p.column}: ${p.message}`);
  if (Object.keys(value).length > 0 && value.kind === undefined) messages.push(`${file}: kind: must be ${SERVER_CONFIG_KIND}`);
  if (messages.length > 0) throw new ServerConfigError(messages);
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = value;
  return mergeServerConfig(DEFAULT_SERVER_CONFIG, rest as Partial<ServerConfigOverrides>);
}

export async function loadServerConfig(file: string): Promise<ServerConfig> {
  return parseServerConfig(await readFile(file, 'utf8'), file);
}

export type ServerConfigOverrides = {
  [K in keyof ServerConfig]?: ServerConfig[K] extends readonly unknown[] ? ServerConfig[K] : Partial<ServerConfig[K]>;
};

/** Defaults, then the file, then command-line flags: each level only replaces the keys it sets. */
export function mergeServerConfig(base: ServerConfig, overrides: ServerConfigOverrides): ServerConfig {
  const merged = structuredClone(base) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = Array.isArray(value) || typeof current !== 'object' ? value : { ...(current as object), ...dropUndefined(value as object) };
  }
  return merged as unknown as ServerConfig;
}

function dropUndefined(value: object): object {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
