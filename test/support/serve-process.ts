/** Runs the built `shaper-gen serve` as a child process on loopback, with a ServerConfig and a CA-signed certificate in a temp dir. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { request, type HttpResult } from './admission-server.js';
import { freePort } from '../../support/free-port.js';
import { builtEntry } from '../../support/built-package.js';
import { REPO_ROOT } from './fixture-project.js';
import { createTestCA, type TestCA } from '../../support/pki.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/shaper-gen.js');

export interface ServeProcess {
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** The JSON log lines among the output. */
  logs(): Record<string, any>[];
  readonly exited: Promise<number | null>;
}

export interface NodeProcessOptions {
  cwd?: string;
  nodeOptions?: string;
  env?: NodeJS.ProcessEnv;
}

export function serve(args: string[], options: NodeProcessOptions = {}): ServeProcess {
  return runNode([CLI, 'serve', ...args], options);
}

/** Node on `args` (a script and its arguments), such as a user's own entry point that starts the server. */
export function runNode(args: string[], options: NodeProcessOptions = {}): ServeProcess {
  const env = { ...process.env, ...(options.nodeOptions !== undefined && { NODE_OPTIONS: options.nodeOptions }), ...options.env };
  const child = spawn(process.execPath, args, { cwd: options.cwd ?? REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  return {
    child,
    output: () => output,
    logs: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line)),
    exited: once(child, 'exit').then(([code]) => code as number | null),
  };
}

/** Polls /readyz?verbose until it passes, the process exits, or 20 s pass; returns what it last read. */
export async function waitReady(healthPort: number, server: ServeProcess): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await getPlain(healthPort, '/readyz?verbose').catch(() => undefined);
    if (res?.status === 200 || Date.now() > until || server.child.exitCode !== null) return res?.text ?? server.output();
    await sleep(100);
  }
}

export function getPlain(port: number, urlPath: string): Promise<HttpResult> {
  return request(http, { host: '127.0.0.1', port, path: urlPath, agent: false }, undefined);
}

/** The sample's paths served without a cluster: /validate-assignment reads Profiles through an informer cache, which needs an API server. */
export const OFFLINE_SAMPLE_PATHS = ['/mutate-assignment', '/mutate-profile', '/validate-profile'];

export interface ServeConfigOptions {
  /** Default: the sample's webhooks that need no API server (OFFLINE_SAMPLE_PATHS). */
  handlers?: string[];
  expectedPaths?: string[];
  drainSeconds?: number;
  timeoutSeconds?: number;
  /** More top-level YAML, or `webhook` / `health` / `metrics` keys through `webhookExtra` / `healthExtra` / `metricsExtra`. */
  extra?: string;
  webhookExtra?: string;
  healthExtra?: string;
  metricsExtra?: string;
}

export interface ServeConfig {
  file: string;
  port: number;
  health: number;
  metrics: number;
}

/** A directory with a serving certificate (tls.crt, tls.key for localhost and 127.0.0.1) and room for configs. */
export class ServeDir {
  private constructor(
    readonly dir: string,
    readonly ca: TestCA,
  ) {}

  static async create(): Promise<ServeDir> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-serve-'));
    const ca = await createTestCA();
    const serving = await ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
    writeFileSync(path.join(dir, 'tls.crt'), serving.cert);
    writeFileSync(path.join(dir, 'tls.key'), serving.key);
    const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist', file)).href);
    writeFileSync(
      path.join(dir, 'sample-offline.mjs'),
      `import { webhookOf } from ${JSON.stringify(builtEntry())};\nimport { webhooks as sample } from ${dist('sample/webhooks.generated.js')};\nexport const webhooks = sample.filter((c) => webhookOf(c).cache.length === 0);\n`,
    );
    return new ServeDir(dir, ca);
  }

  async writeConfig(options: ServeConfigOptions = {}): Promise<ServeConfig> {
    const [port, health, metrics] = [await freePort(), await freePort(), await freePort()];
    const file = path.join(this.dir, `config-${port}.yaml`);
    const handlers = options.handlers ?? [path.join(this.dir, 'sample-offline.mjs')];
    const expectedPaths = options.expectedPaths ?? OFFLINE_SAMPLE_PATHS;
    writeFileSync(
      file,
      `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [${handlers.join(', ')}]
expectedPaths: [${expectedPaths.join(', ')}]
webhook: { bindAddress: 127.0.0.1, port: ${port}, certDir: ${this.dir}${options.webhookExtra ? `, ${options.webhookExtra}` : ''} }
health: { bindAddress: 127.0.0.1, port: ${health}${options.healthExtra ? `, ${options.healthExtra}` : ''} }
metrics: { bindAddress: 127.0.0.1, port: ${metrics}${options.metricsExtra ? `, ${options.metricsExtra}` : ''} }
shutdown: { drainSeconds: ${options.drainSeconds ?? 1}, timeoutSeconds: ${options.timeoutSeconds ?? 5} }
${options.extra ?? ''}`,
    );
    return { file, port, health, metrics };
  }

  /** POSTs a JSON body to the webhook port, verifying the server against the test CA. */
  post(port: number, urlPath: string, body: unknown, agent: https.Agent | false = false): Promise<HttpResult> {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return request(
      https,
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        method: 'POST',
        ca: this.ca.cert,
        servername: 'localhost',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) },
      },
      text,
    );
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls `condition` every 20 ms until it holds or `ms` pass; returns whether it held. */
export async function until(condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return true;
    await sleep(20);
  }
  return condition();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
