/**
 * The built `shaper-gen serve` as the container runs it: config file, cert dir,
 * the sample's generated handlers module, readiness, admission, SIGTERM drain.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { freePort, request } from '../../support/admission-server.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { createTestCA, type TestCA } from '../../support/pki.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/shaper-gen.js');
let dir: string;
let ca: TestCA;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-serve-'));
  ca = await createTestCA();
  const serving = await ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
  writeFileSync(path.join(dir, 'tls.crt'), serving.cert);
  writeFileSync(path.join(dir, 'tls.key'), serving.key);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Serve {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function serve(args: string[]): Serve {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output, exited: once(child, 'exit').then(([code]) => code as number | null) };
}

async function waitReady(port: number, child: Serve): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await request(http, { host: '127.0.0.1', port, path: '/readyz?verbose', agent: false }, undefined).catch(() => undefined);
    if (res?.status === 200 || Date.now() > until || child.child.exitCode !== null) return res?.text ?? child.output();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function writeConfig(extra = ''): Promise<{ file: string; port: number; health: number; metrics: number }> {
  const [port, health, metrics] = [await freePort(), await freePort(), await freePort()];
  const file = path.join(dir, `config-${port}.yaml`);
  writeFileSync(
    file,
    `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [dist/sample/webhooks.generated.js]
expectedPaths: [/mutate-assignment, /mutate-profile, /validate-assignment, /validate-profile]
webhook: { bindAddress: 127.0.0.1, port: ${port}, certDir: ${dir} }
health: { bindAddress: 127.0.0.1, port: ${health} }
metrics: { bindAddress: 127.0.0.1, port: ${metrics} }
shutdown: { drainSeconds: 1, timeoutSeconds: 5 }
${extra}`,
  );
  return { file, port, health, metrics };
}

describe('shaper-gen serve', () => {
  it('serves the sample webhooks from its config, becomes ready, answers, and drains on SIGTERM', async () => {
    const config = await writeConfig();
    const server = serve(['--config', config.file]);
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      const review = admissionReview({ object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'a' }, spec: {} } });
      const body = JSON.stringify(review);
      const res = await request(https, {
        host: '127.0.0.1', port: config.port, path: '/mutate-profile?timeout=5s', method: 'POST', ca: ca.cert, servername: 'localhost', agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      }, body);
      expect(res.json.response).toMatchObject({ uid: review.request!.uid, allowed: true, patchType: 'JSONPatch' });
      const metrics = await request(http, { host: '127.0.0.1', port: config.metrics, path: '/metrics', agent: false }, undefined);
      expect(metrics.text).toContain('shaper_webhook_requests_total{webhook="/mutate-profile",operation="CREATE",allowed="true",code="200"} 1');

      server.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await request(http, { host: '127.0.0.1', port: config.health, path: '/readyz', agent: false }, undefined)).status).toBe(503);
      expect(await server.exited).toBe(0);
      const logs = server.output().trim().split('\n').map((line) => JSON.parse(line));
      expect(logs.map((line) => line.msg)).toEqual(expect.arrayContaining(['serving certificate loaded', 'serving 4 webhook(s)', 'shutting down: unready, draining', 'stopped']));
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('stays unready, naming the path, when the chart expects a webhook the handlers do not serve', async () => {
    const config = await writeConfig();
    writeFileSync(config.file, readFileSync(config.file, 'utf8').replace('expectedPaths: [', 'expectedPaths: [/validate-pod, '));
    const server = serve(['--config', config.file]);
    try {
      const until = Date.now() + 20_000;
      let text = '';
      while (Date.now() < until && !text.includes('handlers failed')) {
        text = (await request(http, { host: '127.0.0.1', port: config.health, path: '/readyz', agent: false }, undefined).catch(() => ({ text: '' }))).text;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(text).toContain('[-]handlers failed: no handler registered for /validate-pod');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('exits 1 with file:line:col for a bad config, and names a handlers module that cannot load', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: shaper-gen.io/v1alpha1\nkind: ServerConfig\nwebhook:\n  prot: 9443\n');
    const first = serve(['--config', bad]);
    expect(await first.exited).toBe(1);
    expect(first.output()).toContain(`${bad}:4:3: webhook.prot: unknown key`);

    const missing = serve(['--handlers', './nope/handlers.js', '--cert-dir', dir, '--port', '0', '--health-port', '0', '--metrics-port', '0']);
    expect(await missing.exited).toBe(1);
    expect(missing.output()).toContain('cannot import handlers module ./nope/handlers.js');
  });

  it('--dev serves on loopback with an in-memory certificate and prints where', async () => {
    const port = await freePort();
    const server = serve(['--dev', '--handlers', 'dist/sample/webhooks.generated.js', '--port', String(port), '--health-port', '0', '--metrics-port', '0']);
    try {
      const until = Date.now() + 20_000;
      while (!server.output().includes('shaper-gen serve --dev:') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.output()).toContain(`shaper-gen serve --dev: https://localhost:${port}`);
      const body = JSON.stringify(admissionReview({ object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p' }, spec: { priority: 5000 } } }));
      const res = await request(https, {
        host: '127.0.0.1', port, path: '/validate-profile', method: 'POST', rejectUnauthorized: false, agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      }, body);
      expect(res.json.response.status.message).toContain('spec.priority: Invalid value: 5000');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
