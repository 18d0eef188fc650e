/**
 * `shaper-gen serve` as the benchmarks run it against a real API server: on
 * 127.0.0.1 with a certificate from a test CA, the chart's NODE_OPTIONS and
 * environment, pinned to CPU 0, serving a handlers module written for the run;
 * resolved once /readyz answers 200.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../support/free-port.ts';
import { waitFor } from '../../support/kindenv/processes.ts';
import { createTestCA, type TestCA } from '../../support/pki.ts';
import { REPO_ROOT } from '../../support/repo-root.ts';
import { chartNodeOptions, chartProcessEnv } from './chart-node-options.ts';

export interface LoopbackServe {
  readonly child: ChildProcess;
  readonly port: number;
  /** The CA that signed the serving certificate: the API server's caBundle. */
  readonly ca: TestCA;
}

export interface LoopbackServeOptions {
  /** The handlers module's source: an ES module exporting `webhooks`. */
  readonly handlers: string;
  /** Added to the chart's environment (e.g. KUBECONFIG for a cache). */
  readonly env?: NodeJS.ProcessEnv;
  /** What readiness waits for, in the timeout's message. */
  readonly ready?: string;
  /** The ServerConfig's `policies` section (policies the server enforces itself). */
  readonly policies?: object;
}

export async function startLoopbackServe(work: string, options: LoopbackServeOptions): Promise<LoopbackServe> {
  const ca = await createTestCA('shaper-gen bench CA');
  const serving = await ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
  const certDir = path.join(work, 'certs');
  mkdirSync(certDir, { recursive: true });
  writeFileSync(path.join(certDir, 'tls.crt'), serving.cert);
  writeFileSync(path.join(certDir, 'tls.key'), serving.key);
  const handlers = path.join(work, 'handlers.mjs');
  writeFileSync(handlers, options.handlers);
  const [port, health] = [await freePort(), await freePort()];
  const config = path.join(work, 'server.yaml');
  writeFileSync(
    config,
    `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [${handlers}]
webhook: { bindAddress: 127.0.0.1, port: ${port}, certDir: ${certDir} }
health: { bindAddress: 127.0.0.1, port: ${health} }
metrics: { port: 0 }
log: { level: warn }
${options.policies ? `policies: ${JSON.stringify(options.policies)}\n` : ''}`,
  );
  const child = spawn('taskset', ['-c', '0', process.execPath, ...chartNodeOptions(REPO_ROOT), path.join(REPO_ROOT, 'dist/bin/shaper-gen.js'), 'serve', '--config', config], {
    cwd: REPO_ROOT,
    env: { ...chartProcessEnv(REPO_ROOT), ...options.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitFor(
    options.ready ?? 'shaper-gen serve to be ready',
    async () => {
      if (child.exitCode !== null) throw new Error(`shaper-gen serve exited with ${child.exitCode}`);
      return (await readyz(health)) === 200 ? true : undefined;
    },
    30_000,
    200,
  );
  return { child, port, ca };
}

function readyz(port: number): Promise<number> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}
