/**
 * Cached versus live lookups against a real API server (node bench/run.ts
 * cache; root, Go for the cluster tools): the sample's /validate-assignment
 * reading its Profile from the informer cache, beside the same validator
 * reading it with `{ live: true }` (a GET per admission, what the sample did
 * before the cache). kindEnv's control plane (etcd + kube-apiserver),
 * `shaper-gen serve` on loopback with the admin kubeconfig, wrk with 32
 * connections for a fixed time per cell, interleaved rounds. Reports req/s,
 * p50/p99 and the API server's own count of Profile GET and LIST/WATCH
 * requests during each cell (apiserver_request_total). Also writes
 * bench/results/cache.json.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createKindEnv } from '../../support/kindenv/index.ts';
import { builtEntry } from '../../support/built-package.ts';
import { createSampleCrds } from '../../support/kindenv/sample.ts';
import { REPO_ROOT } from '../../support/repo-root.ts';
import { assignmentReview } from '../admission/bodies.ts';
import { startLoopbackServe } from '../support/loopback-serve.ts';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';
import { runWrk, type WrkResult } from '../support/wrk.ts';

const CONNECTIONS = 32;
const CELLS = [
  { name: 'cached', path: '/validate-assignment' },
  { name: 'live GET', path: '/validate-assignment-live' },
] as const;

type Env = Awaited<ReturnType<typeof createKindEnv>>;

/** The sample's CRDs, the Assignment's namespace and the Profile it names. */
async function createObjects(env: Env, namespace: string): Promise<void> {
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  // The CRDs the sample's chart renders (generated from sample/api/ by `shaper-gen manifests`).
  await createSampleCrds(env.kubeConfig, namespace);
  const objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
  await objects.createNamespacedCustomObject({
    group: 'shaper.io',
    version: 'v1alpha1',
    namespace,
    plural: 'profiles',
    body: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'gold', namespace }, spec: { tier: 'gold' } },
  });
}

type Runs = Map<string, { wrk: WrkResult; gets: number; lists: number; watches: number }[]>;

function reportCells(report: Report, results: Runs, rounds: number, duration: number): Record<string, unknown> {
  report.line(`\`/validate-assignment\` against a real kube-apiserver: ${rounds} interleaved rounds × ${duration} s, ${CONNECTIONS} connections, medians.`);
  report.line();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const summary: Record<string, unknown> = {};
  const rows = CELLS.map((cell) => {
    const runs = results.get(cell.name)!;
    const requests = runs.map((r) => r.wrk.rps * duration);
    const row = {
      rps: median(runs.map((r) => r.wrk.rps)),
      p50Ms: median(runs.map((r) => r.wrk.p50Ms)),
      p99Ms: median(runs.map((r) => r.wrk.p99Ms)),
      errors: runs.reduce((sum, r) => sum + r.wrk.errors, 0),
      apiGetsPerRound: median(runs.map((r) => r.gets)),
      apiGetsPerRequest: median(runs.map((r, i) => r.gets / requests[i]!)),
      apiListWatchPerRound: median(runs.map((r) => r.lists + r.watches)),
    };
    summary[cell.name] = row;
    return [cell.name, row.rps.toFixed(0), row.p50Ms.toFixed(2), row.p99Ms.toFixed(2), row.errors, row.apiGetsPerRound, row.apiGetsPerRequest.toFixed(3), row.apiListWatchPerRound];
  });
  report.table(['lookup', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'API GETs per round', 'GETs per request', 'LIST+WATCH per round'], rows);
  return summary;
}

async function measure(env: Env, work: string, rounds: number, duration: number): Promise<Runs> {
  const review = assignmentReview();
  await createObjects(env, review.request.namespace);
  const started = await startServe(env.kubeconfigPath, work);
  try {
    const bodyFile = path.join(work, 'assignment.json');
    writeFileSync(bodyFile, JSON.stringify(review));
    const check = await postOnce(started.port, started.ca, '/validate-assignment', JSON.stringify(review));
    if (!check.includes('"allowed":true')) throw new Error(`the cached validator did not admit the benchmark's Assignment: ${check}`);
    const checkLive = await postOnce(started.port, started.ca, '/validate-assignment-live', JSON.stringify(review));
    if (!checkLive.includes('"allowed":true')) throw new Error(`the live validator did not admit the benchmark's Assignment: ${checkLive}`);

    for (const cell of CELLS) runWrk({ port: started.port, urlPath: cell.path, bodyFile, connections: 8, seconds: 1 });
    const results: Runs = new Map();
    for (let round = 0; round < rounds; round++) {
      for (const cell of round % 2 === 0 ? CELLS : [...CELLS].reverse()) {
        const before = await profileRequests(env);
        const wrk = runWrk({ port: started.port, urlPath: cell.path, bodyFile, connections: CONNECTIONS, seconds: duration });
        const after = await profileRequests(env);
        results.set(cell.name, [...(results.get(cell.name) ?? []), { wrk, gets: after.get - before.get, lists: after.list - before.list, watches: after.watch - before.watch }]);
      }
    }
    return results;
  } finally {
    started.child.kill('SIGKILL');
  }
}

export default defineBenchmark({
  options: {
    rounds: { kind: 'number', default: 3, description: 'interleaved rounds; each figure is the median over them' },
    duration: { kind: 'number', default: 5, description: 'seconds of wrk per cell' },
  },
  async main({ rounds, duration }, report) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-cache-bench-'));
    const env = await createKindEnv((line) => process.stderr.write(`kindenv: ${line}\n`));
    try {
      const summary = reportCells(report, await measure(env, work, rounds, duration), rounds, duration);
      mkdirSync(path.join(REPO_ROOT, 'bench/results'), { recursive: true });
      writeFileSync(path.join(REPO_ROOT, 'bench/results/cache.json'), JSON.stringify({ when: new Date().toISOString(), rounds, duration, connections: CONNECTIONS, cells: summary }, null, 2));
    } finally {
      await env.stop();
      rmSync(work, { recursive: true, force: true });
    }
  },
});

/** Profile requests the API server has served so far, by verb, from its own metrics. */
async function profileRequests(env: Env): Promise<{ get: number; list: number; watch: number }> {
  const text = await rawMetrics(env);
  const count = (verb: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith('apiserver_request_total{') && line.includes('resource="profiles"') && line.includes(`verb="${verb}"`))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { get: count('GET'), list: count('LIST'), watch: count('WATCH') };
}

function rawMetrics(env: Env): Promise<string> {
  const user = env.kubeConfig.getCurrentUser()!;
  const cluster = env.kubeConfig.getCurrentCluster()!;
  const url = new URL(`${cluster.server}/metrics`);
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: Buffer.from(cluster.caData!, 'base64'), cert: Buffer.from(user.certData!, 'base64'), key: Buffer.from(user.keyData!, 'base64') }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += String(chunk)));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}

/** `shaper-gen serve` on loopback serving the sample's validator twice: from the cache, and reading live. */
async function startServe(kubeconfig: string, work: string): Promise<{ child: ChildProcess; port: number; ca: string }> {
  const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist', file)).href);
  const { child, port, ca } = await startLoopbackServe(work, {
    handlers: `import { Webhook, webhookOf } from ${JSON.stringify(builtEntry())};
import { PROFILES } from ${dist('sample/api/profile.js')};
import { AssignmentValidator } from ${dist('sample/webhooks/assignment-validator.js')};
export class LiveAssignmentValidator extends AssignmentValidator {
  findProfile(namespace, name, ctx) {
    return ctx.cache.get(PROFILES, namespace, name, { live: true });
  }
}
Webhook({ ...webhookOf(AssignmentValidator), path: '/validate-assignment-live', name: undefined })(LiveAssignmentValidator);
export const webhooks = [AssignmentValidator, LiveAssignmentValidator];
`,
    env: { KUBECONFIG: kubeconfig },
    ready: 'shaper-gen serve to be ready (its Profile cache synced)',
  });
  return { child, port, ca: ca.cert };
}

function postOnce(port: number, ca: string, urlPath: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: urlPath, method: 'POST', ca, servername: 'localhost', headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += String(chunk)));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}
