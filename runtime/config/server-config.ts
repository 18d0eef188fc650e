/**
 * The server's YAML configuration (kind ServerConfig, camelCase keys as in
 * Kubernetes objects): its schema, from which its type is derived, its
 * defaults, and its validation. Ports follow the kubebuilder convention:
 * webhook 9443, health 8081, metrics 8080.
 */
import { readFile } from 'node:fs/promises';
import { servedPathProblem } from '../options/kubernetes-names.js';
import { ConfigError, type Problem } from '../problems.js';
import { CIPHER_SUITE_NAMES } from '../tls/cipher-suites.js';
import { LOG_LEVELS } from './log-levels.js';
import { checkDocument, type DocumentOf, type Schema, type SettingsOf } from './schema.js';
import { readYamlConfig } from './yaml-config.js';
import { DEFAULT_COMPILED_HANDLERS } from '../project-layout.js';

export const SERVER_CONFIG_API_VERSION = 'shaper-gen.io/v1alpha1';
export const SERVER_CONFIG_KIND = 'ServerConfig';
export const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;
export const TLS_MIN_VERSIONS = ['1.2', '1.3'] as const;
export const MAX_WORKERS = 64;
export const CERTIFICATE_MODES = ['files', 'self-managed'] as const;

const listener = {
  /** Address to bind; empty means every interface. */
  bindAddress: { type: 'string' },
  /** 0 disables the listener (health and metrics only). */
  port: { type: 'integer', min: 0, max: 65535 },
} as const;
const fileName = { type: 'string', pattern: /^[^/]*$/, hint: 'must be a file name inside certDir, without slashes' } as const;

/** Every setting, its type and its allowed values: the file and the flags are both checked against it. */
export const SERVER_CONFIG_SCHEMA = {
  type: 'object',
  fields: {
    /** Modules (paths relative to the working directory, or package specifiers) that export `webhooks`: the classes to serve. */
    handlers: { type: 'list', items: { type: 'string' } },
    /** Every path the chart's webhook configurations and CRD conversion webhooks call; the server stays unready until it serves each. */
    expectedPaths: { type: 'list', items: { type: 'string', problem: servedPathProblem } },
    /**
     * Processes serving the webhook port (node:cluster, one shared socket); above 1 a primary process runs
     * probes and metrics. Default: the container's CPU limit (cpu-limit.ts), else 1.
     */
    workers: { type: 'integer', min: 1, max: MAX_WORKERS },
    webhook: {
      type: 'object',
      fields: {
        ...listener,
        certDir: { type: 'string' },
        certName: fileName,
        keyName: fileName,
        /** File in certDir with the CA that signs client certificates; set it to require mTLS. */
        clientCAName: fileName,
        tlsMinVersion: { type: 'enum', values: TLS_MIN_VERSIONS },
        /** TLS 1.2 cipher suites (IANA or OpenSSL names); empty: ECDHE with AES-GCM or ChaCha20-Poly1305. TLS 1.3 suites are fixed. */
        cipherSuites: { type: 'list', items: { type: 'enum', values: CIPHER_SUITE_NAMES } },
        maxRequestBytes: { type: 'integer', min: 1024, max: 64 * 1024 * 1024 },
        /** Connections kept open at once; past it the oldest that has not sent a request is closed (connection-limits.ts). */
        maxConnections: { type: 'integer', min: 1, max: 65535 },
        /** Connections in their TLS handshake at once; past it the oldest is closed. */
        maxHandshakes: { type: 'integer', min: 1, max: 65535 },
        /** Fallback poll for certificate changes, besides watching the directory. */
        certPollSeconds: { type: 'integer', min: 1, max: 3600 },
      },
    },
    /**
     * Where the serving certificate comes from: `files` in webhook.certDir (cert-manager's Secret, or yours, mounted there), or
     * `self-managed`: the replicas elect an issuer that keeps a CA and the serving certificate in a Secret and the CA bundle in
     * the webhook configurations and CRDs (tls/self-managed/), and every replica writes the Secret's certificate into certDir.
     */
    certificates: {
      type: 'object',
      fields: {
        /** `files`: webhook.certDir as mounted; `self-managed`: the replicas issue and rotate it (the settings below). */
        mode: { type: 'enum', values: CERTIFICATE_MODES },
        /** The namespace of the Secret and the Lease: the release's. */
        namespace: { type: 'string' },
        /** The Secret holding the CAs, the serving certificate and the replicas' reports. */
        secretName: { type: 'string' },
        /** The coordination.k8s.io Lease through which the replicas agree on one issuer. */
        leaseName: { type: 'string' },
        /** The names the serving certificate carries: the Service's DNS names. */
        dnsNames: { type: 'list', items: { type: 'string' } },
        /** The Service the API server calls: old CAs stay trusted until every pod among its endpoints serves the newest certificate. Empty: the reports alone decide. */
        serviceName: { type: 'string' },
        /** The Validating- and MutatingWebhookConfigurations whose webhooks get the CA bundle (each kind that exists by this name). */
        webhookConfigurations: { type: 'list', items: { type: 'string' } },
        /** The CustomResourceDefinitions whose conversion webhook gets the CA bundle. */
        conversionCrds: { type: 'list', items: { type: 'string' } },
        /** Lifetime of each CA; a new one joins the bundle two thirds through. */
        caValiditySeconds: { type: 'integer', min: 10, max: 20 * 365 * 24 * 3600 },
        /** Lifetime of the serving certificate; renewed two thirds through. */
        servingValiditySeconds: { type: 'integer', min: 10, max: 5 * 365 * 24 * 3600 },
        /** How often each replica reads the Secret and the issuer renews the Lease and checks the certificates. */
        checkSeconds: { type: 'integer', min: 1, max: 600 },
      },
    },
    health: {
      type: 'object',
      fields: {
        ...listener,
        /** Liveness fails once the main thread has not run for this long (a probe waiting behind a busy thread is answered when it runs again). */
        stallSeconds: { type: 'integer', min: 1, max: 600 },
      },
    },
    metrics: {
      type: 'object',
      fields: {
        ...listener,
        /**
         * Also serve nodejs_gc_duration_seconds. Node reports every collection to it as JavaScript objects that V8 keeps
         * in the old generation: under load that tripled the mark-compacts and raised mutation's p99 (ADR 0016).
         */
        gcDurations: { type: 'boolean' },
      },
    },
    shutdown: {
      type: 'object',
      fields: {
        /** After SIGTERM: unready at once, keep serving this long so endpoints drop the pod. */
        drainSeconds: { type: 'integer', min: 0, max: 600 },
        /** Then: stop accepting, and wait at most this long for requests in flight. */
        timeoutSeconds: { type: 'integer', min: 0, max: 600 },
      },
    },
    log: { type: 'object', fields: { level: { type: 'enum', values: LOG_LEVELS } } },
    /**
     * ValidatingAdmissionPolicies and MutatingAdmissionPolicies this server enforces as webhooks, where the API server
     * does not serve them (the chart decides per policy): each evaluated by the API server's own admission code, the
     * CEL engine, loaded only when there is one.
     */
    policies: {
      type: 'object',
      fields: {
        /** The CEL engine's build (cel-engine.wasm or cel-engine.wasm.gz, and wasm_exec.js); empty: $SHAPER_GEN_CEL_ENGINE, ./cel-engine, or @shaper-gen/generator's. */
        engineDir: { type: 'string' },
        /** The built-in kinds' OpenAPI schemas (the generator's kubernetes-schemas/*.json) an ApplyConfiguration is merged by; empty: beside the engine. */
        apiSchemasFile: { type: 'string' },
        served: {
          type: 'list',
          items: {
            type: 'object',
            fields: {
              /** The path its webhook entry calls. */
              path: { type: 'string', problem: servedPathProblem },
              /** The policy and its bindings, as YAML documents (admissionregistration.k8s.io v1, or v1beta1 for a MutatingAdmissionPolicy). */
              objects: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const satisfies Schema;

const FILE_SCHEMA = {
  type: 'object',
  fields: {
    apiVersion: { type: 'enum', values: [SERVER_CONFIG_API_VERSION] },
    kind: { type: 'enum', values: [SERVER_CONFIG_KIND] },
    ...SERVER_CONFIG_SCHEMA.fields,
  },
} as const satisfies Schema;

export type ServerConfig = SettingsOf<typeof SERVER_CONFIG_SCHEMA>;
/** Some settings, as a file or the command line gives them. */
export type ServerConfigOverrides = DocumentOf<typeof SERVER_CONFIG_SCHEMA>;
/** Where a plain-HTTP listener binds. */
export type ListenerConfig = Pick<ServerConfig['metrics'], 'bindAddress' | 'port'>;

export const DEFAULT_SERVER_CONFIG: ServerConfig = {
  handlers: [DEFAULT_COMPILED_HANDLERS],
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
    maxConnections: 1024,
    maxHandshakes: 128,
    certPollSeconds: 10,
  },
  certificates: {
    mode: 'files',
    namespace: '',
    secretName: '',
    leaseName: '',
    dnsNames: [],
    serviceName: '',
    webhookConfigurations: [],
    conversionCrds: [],
    caValiditySeconds: 10 * 365 * 24 * 3600,
    servingValiditySeconds: 90 * 24 * 3600,
    checkSeconds: 10,
  },
  health: { bindAddress: '', port: 8081, stallSeconds: 20 },
  metrics: { bindAddress: '', port: 8080, gcDurations: false },
  shutdown: { drainSeconds: 5, timeoutSeconds: 20 },
  log: { level: 'info' },
  policies: { engineDir: '', apiSchemasFile: '', served: [] },
};

/** The settings a ServerConfig document sets (no defaults); throws ConfigError with `file:line:col` problems. */
export function readServerConfig(text: string, file = 'config'): ServerConfigOverrides {
  const { value, problems } = readYamlConfig(text, FILE_SCHEMA, file);
  const missingKind: Problem[] =
    Object.keys(value).length > 0 && value.kind === undefined ? [{ path: ['kind'], message: `must be ${SERVER_CONFIG_KIND}`, source: { file, line: 1, column: 1 } }] : [];
  if (problems.length + missingKind.length > 0) throw new ConfigError([...problems, ...missingKind], 'server configuration');
  const { apiVersion: _apiVersion, kind: _kind, ...settings } = value;
  return settings;
}

/** Parses a ServerConfig document over the defaults. */
export function parseServerConfig(text: string, file = 'config'): ServerConfig {
  return mergeServerConfig(DEFAULT_SERVER_CONFIG, readServerConfig(text, file));
}

export async function loadServerConfig(file: string): Promise<ServerConfig> {
  return mergeServerConfig(DEFAULT_SERVER_CONFIG, await readServerConfigFile(file));
}

/** readServerConfig of a file; a file that cannot be read is a ConfigError too. */
export async function readServerConfigFile(file: string): Promise<ServerConfigOverrides> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ConfigError([{ path: [], message: `cannot read config file ${file}: ${reason}` }], 'server configuration');
  }
  return readServerConfig(text, file);
}

/** Checks settings given other than by a file (flags, code) against the same schema; throws ConfigError. */
export function checkServerConfig(settings: unknown, subject = 'server configuration'): ServerConfigOverrides {
  const problems: Problem[] = [];
  const checked = checkDocument(settings, SERVER_CONFIG_SCHEMA, (path, message) => problems.push({ path, message }));
  if (problems.length > 0) throw new ConfigError(problems, subject);
  return checked;
}

/** Defaults, then the file, then command-line flags: each level only replaces the keys it sets. */
export function mergeServerConfig(base: ServerConfig, overrides: ServerConfigOverrides): ServerConfig {
  const merged = structuredClone(base) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(overrides) as [string, unknown][]) {
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = Array.isArray(value) || typeof current !== 'object' ? value : { ...current!, ...dropUndefined(value as object) };
  }
  return merged as unknown as ServerConfig;
}

function dropUndefined(value: object): object {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
