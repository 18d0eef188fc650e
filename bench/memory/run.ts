/**
 * Memory under large reviews, with the chart's heap settings (node bench/run.ts
 * memory): does `serve` survive 4 concurrent ~3 MiB UPDATE reviews (object +
 * oldObject) and single reviews of up to maxRequestBytes, and how high does RSS
 * go? One fresh server per case; each case is a fixed number of requests with
 * a 60 s timeout. The server runs with the NODE_OPTIONS the chart renders.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../support/free-port.ts';
import { builtEntry } from '../../support/built-package.ts';
import { REVIEW_SHAPES, shapedReview } from '../../support/review-shapes.ts';
import { profileReview } from '../admission/bodies.ts';
import { defineBenchmark } from '../support/benchmark.ts';
import { chartNodeOptions, chartProcessEnv } from '../support/chart-node-options.ts';
import type { Report } from '../support/report.ts';

const repo = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MiB = 1024 * 1024;

/** How every case's server runs: the chart's node flags (and a heap override), and whether it loads @kubernetes/client-node. */
interface Setup {
  readonly flags: readonly string[];
  readonly withApiClient: boolean;
}

/** A Profile review of about `bytes`, its bulk in annotations; UPDATE carries it twice. */
function bigProfile(bytes: number, operation: 'CREATE' | 'UPDATE', shape: 'annotations' | 'many-keys'): string {
  const body = profileReview(`mem-${bytes}-${operation}`) as { request: Record<string, any> };
  const object = body.request.object;
  const share = operation === 'UPDATE' ? bytes / 2 : bytes;
  if (shape === 'annotations') {
    const count = Math.max(1, Math.floor(share / 1024));
    object.metadata.annotations = Object.fromEntries(Array.from({ length: count }, (_, i) => [`example.com/note-${i}`, 'x'.repeat(1000)]));
  } else {
    const count = Math.floor(share / 17);
    object.spec.extra = Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
  }
  body.request.operation = operation;
  if (operation === 'UPDATE') body.request.oldObject = structuredClone(object);
  return JSON.stringify(body);
}

/** The HTTP status and the review's outcome: `200 allowed`, `200 denied 413`, or `failed` when no answer came. */
function post(port: number, urlPath: string, body: string): Promise<string> {
  return new Promise((resolve) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: urlPath, method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'content-type': 'application/json' }, timeout: 60_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const response = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response?: { allowed?: boolean; status?: { code?: number } } }).response;
          resolve(`${res.statusCode} ${response?.allowed ? 'allowed' : `denied ${response?.status?.code}`}`);
        });
      },
    );
    req.on('error', () => resolve('failed'));
    req.on('timeout', () => req.destroy());
    req.end(body);
  });
}

function peakRssMiB(pid: number): number | undefined {
  const found = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return found ? Math.round(Number(found[1]) / 1024) : undefined;
}

async function measure(report: Report, setup: Setup, name: string, urlPath: string, bodies: string[]): Promise<void> {
  const [port, health] = [await freePort(), await freePort()];
  const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-mem-'));
  const config = path.join(work, 'server.yaml');
  writeFileSync(
    config,
    `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [dist/bench/admission/handlers.js${setup.withApiClient ? `, ${apiClientHandlers(work)}` : ''}]
webhook: { bindAddress: 127.0.0.1, port: ${port} }
health: { bindAddress: 127.0.0.1, port: ${health} }
metrics: { port: 0 }
log: { level: error }
`,
  );
  const child = spawn(process.execPath, [...setup.flags, path.join(repo, 'dist/bin/shaper-gen.js'), 'serve', '--dev', '--config', config], {
    cwd: repo,
    env: chartProcessEnv(repo),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 20_000;
    while (!stderr.includes('shaper-gen serve --dev')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const idle = peakRssMiB(child.pid!);
    const started = performance.now();
    const statuses = await Promise.all(bodies.map((body) => post(port, urlPath, body)));
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const peak = peakRssMiB(child.pid!);
    if (peak === undefined) await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 2000))]);
    const alive = peak !== undefined && child.exitCode === null && child.signalCode === null;
    const histogram = Object.entries(statuses.reduce<Record<string, number>>((h, s) => ({ ...h, [s]: (h[s] ?? 0) + 1 }), {}))
      .map(([s, n]) => `${s} ×${n}`)
      .join(', ');
    const sizes = [...new Set(bodies.map((b) => (b.length / MiB).toFixed(1)))].join('/');
    report.line(`| ${name} | ${bodies.length} × ${sizes} MiB | ${histogram} | ${seconds} s | ${idle} → ${alive ? peak : `died (${child.signalCode ?? child.exitCode})`} MiB |`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(work, { recursive: true, force: true });
  }
}

/** A webhook that declares rbac (it uses ctx.kube), so that serve loads @kubernetes/client-node as a lookup-doing app does. */
function apiClientHandlers(dir: string): string {
  const file = path.join(dir, 'api-client.mjs');
  const runtime = JSON.stringify(builtEntry());
  writeFileSync(
    file,
    `import { Webhook } from ${runtime};
export class UsesTheApi { validateCreate() {} }
Webhook({ path: '/validate-uses-api', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }], rbac: [{ groups: [''], resources: ['configmaps'], verbs: ['get'] }] })(UsesTheApi);
export const webhooks = [UsesTheApi];
`,
  );
  return file;
}

/** Every case: its name, the webhook, and the bodies sent to it at once. */
function cases(): { name: string; path: string; bodies: () => string[] }[] {
  const times = (n: number, body: () => string) => () => Array.from({ length: n }, body);
  // The largest review of each shape (maxRequestBytes less 1 KiB): what the chart's heap admits, and the peak it costs.
  const largest = 7 * MiB - 1024;
  return [
    { name: 'mutate UPDATE, annotations', path: '/mutate-profile', bodies: times(4, () => bigProfile(3 * MiB, 'UPDATE', 'annotations')) },
    { name: 'mutate UPDATE, keys', path: '/mutate-profile', bodies: times(4, () => bigProfile(3 * MiB, 'UPDATE', 'many-keys')) },
    { name: 'mutate CREATE, 7 MiB of keys', path: '/mutate-profile', bodies: times(1, () => bigProfile(6.9 * MiB, 'CREATE', 'many-keys')) },
    { name: 'validate CREATE, 7 MiB of keys', path: '/validate-allow-all', bodies: times(1, () => bigProfile(6.9 * MiB, 'CREATE', 'many-keys')) },
    { name: 'mutate CREATE, 7 MiB × 4', path: '/mutate-profile', bodies: times(4, () => bigProfile(6.9 * MiB, 'CREATE', 'annotations')) },
    { name: 'mutate CREATE, 7 MiB of keys × 3', path: '/mutate-profile', bodies: times(3, () => bigProfile(6.9 * MiB, 'CREATE', 'many-keys')) },
    ...(['mutate', 'validate'] as const).flatMap((work) =>
      Object.keys(REVIEW_SHAPES).map((shape) => ({
        name: `${work}, 7 MiB of ${shape}`,
        path: work === 'mutate' ? '/mutate-profile' : '/validate-allow-all',
        bodies: () => [shapedReview(`${work}-${shape}`, shape, largest)],
      })),
    ),
  ];
}

export default defineBenchmark({
  options: {
    'old-space': { kind: 'number', default: 0, description: "--max-old-space-size for the server, in MiB (0: the chart's)" },
    'with-api-client': { kind: 'flag', description: 'add a webhook that declares rbac, so that serve loads @kubernetes/client-node as an app that looks objects up does' },
    only: { kind: 'string', description: 'run only the cases whose name contains this text' },
  },
  async main(options, report) {
    const oldSpace = options['old-space'];
    const setup: Setup = { flags: [...chartNodeOptions(repo), ...(oldSpace ? [`--max-old-space-size=${oldSpace}`] : [])], withApiClient: options['with-api-client'] };
    const selected = cases().filter((c) => options.only === undefined || c.name.includes(options.only));
    if (selected.length === 0) throw new Error(`bench: no memory case's name contains "${options.only}"`);
    report.line(`Node flags \`${setup.flags.join(' ')}\`${setup.withApiClient ? '; with @kubernetes/client-node loaded' : ''}; one fresh server per case.`);
    report.line();
    report.line('| case | requests | answers | wall | RSS idle → peak |');
    report.line('| --- | --- | --- | --- | --- |');
    for (const c of selected) await measure(report, setup, c.name, c.path, c.bodies());
  },
});
