/**
 * A policy versus a webhook, through the real API server (node bench/run.ts
 * policy-vs-webhook; Go for the cluster tools): kindEnv's bare control plane
 * (etcd and the pinned kube-apiserver), the sample's CRDs, and the same valid
 * Profile created (server-side dry run) in four namespaces: one guarded by
 * the sample's ProfileValidator webhook served by `shaper-gen serve` on
 * loopback, one by the same checks as a generated ValidatingAdmissionPolicy,
 * one by that policy enforced by another `serve` (the chart's served-policy
 * webhook entry), one by nothing (guards.ts). Before anything is timed, each
 * guard must deny the same malformed Profiles, with its own name in the
 * message, and the floor admit them. Then, per concurrency, interleaved rounds
 * (the order of the four rotates), each a bounded count of creates: p50/p99 latency as the
 * client sees it, throughput, and the API server's own mean time in the
 * webhook call or the policy check (its metrics). Holds the cluster tests'
 * lock (support/cluster-lock.ts) from before the control plane starts. Also
 * writes bench/results/policy-vs-webhook.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { holdClusterLock, type HeldLock } from '../../support/cluster-lock.ts';
import { rawRequest, startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.ts';
import { waitFor } from '../../support/kindenv/processes.ts';
import { createSampleCrds } from '../../support/kindenv/sample.ts';
import { REPO_ROOT } from '../../support/repo-root.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';
import { servedPolicyWebhookName } from 'shaper-gen/internal/generator';
import { benchChart, generatedPolicy, GUARDS, namespaceOf, namespaces, POLICY_NAME, servePolicy, serveWebhook, WEBHOOK_NAME, type Guard, type ServedWebhook } from './guards.ts';
import { apiAgent, apiRequest, createLoad, percentile, profilesPath, validProfile, type LoadResult } from './load.ts';

const log = (line: string) => process.stderr.write(`policy-vs-webhook: ${line}\n`);
let lock: HeldLock | undefined;

/** Profiles the CRD's schema admits and ProfileValidator refuses: each guard must deny them, the floor admit them. */
const MALFORMED: readonly { what: string; spec: object }[] = [
  { what: 'cpu not a quantity', spec: { tier: 'silver', resources: { cpu: 'lots' } } },
  { what: 'negative memory', spec: { tier: 'bronze', resources: { memory: '-1Gi' } } },
];

interface Cell {
  load: LoadResult;
  /** The API server's own mean time in the guard during the cell (its metrics), ms. */
  serverMeanMs?: number;
  serverCalls?: number;
}
type Results = Map<number, Map<Guard, Cell[]>>;

async function post(plane: ControlPlane, urlPath: string, body: object): Promise<void> {
  const answer = await rawRequest(plane.apiServerPort, 'POST', urlPath, plane.ca.cert, plane.admin, JSON.stringify(body));
  if (answer.status !== 201) throw new Error(`POST ${urlPath}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 400)}`);
}

/** The answer to each malformed Profile in each namespace: the floor admits, the guards deny naming themselves. */
async function checkDecisions(plane: ControlPlane, agent: https.Agent, report: Report): Promise<void> {
  const expectedName: Record<Guard, string | undefined> = {
    none: undefined,
    webhook: `admission webhook "${WEBHOOK_NAME}" denied the request`,
    policy: `ValidatingAdmissionPolicy '${POLICY_NAME}'`,
    'served-policy': `admission webhook "${servedPolicyWebhookName(POLICY_NAME)}" denied the request`,
  };
  const rows: string[][] = [];
  const messages = new Map<Guard, string>();
  for (const { what, spec } of MALFORMED) {
    const row = [what];
    for (const guard of GUARDS) {
      const namespace = namespaceOf(guard);
      const body = { ...(validProfile(namespace, 0) as { metadata: object }), spec };
      const answer = await apiRequest(plane, agent, 'POST', profilesPath(namespace), body);
      const message = String(answer.body?.message ?? '');
      const expected = expectedName[guard];
      const right = expected === undefined ? answer.status === 201 : answer.status === 422 && message.includes(expected);
      if (!right) throw new Error(`${what} in ${namespace}: expected ${expected === undefined ? '201' : `a 422 from ${expected}`}, got ${answer.status} ${message}`);
      row.push(expected === undefined ? 'admitted' : `denied ${answer.status}`);
      if (expected !== undefined && !messages.has(guard)) messages.set(guard, `${answer.status} ${String(answer.body?.reason)}: ${message}`);
    }
    rows.push(row);
  }
  report.line('Decisions checked before timing (dry-run creates the CRD schema admits):');
  report.line();
  report.table(['Profile', ...GUARDS], rows);
  report.line();
  report.line(`What the API server answered to the first (${MALFORMED[0]!.what}), per guard:`);
  report.line();
  for (const [guard, message] of messages) report.line(`- ${guard}: \`${message}\``);
  report.line();
}

/** Waits until the webhook configurations and the policy are in force (the API server loads them from its informers). */
async function waitForGuards(plane: ControlPlane, agent: https.Agent): Promise<void> {
  for (const guard of GUARDS.filter((guard) => guard !== 'none')) {
    const namespace = namespaceOf(guard);
    const body = { ...(validProfile(namespace, 0) as { metadata: object }), spec: MALFORMED[0]!.spec };
    await waitFor(`the ${guard} to guard ${namespace}`, async () => ((await apiRequest(plane, agent, 'POST', profilesPath(namespace), body)).status === 422 ? true : undefined), 60_000, 250);
  }
}

/** The sum and count of a histogram's series whose labels include `label`, from the API server's /metrics. */
async function histogram(plane: ControlPlane, name: string, label: string): Promise<{ sum: number; count: number }> {
  const { body } = await rawRequest(plane.apiServerPort, 'GET', '/metrics', plane.ca.cert, plane.admin);
  const total = (suffix: string) =>
    String(body)
      .split('\n')
      .filter((line) => line.startsWith(`${name}_${suffix}{`) && line.includes(label))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { sum: total('sum'), count: total('count') };
}

// The admission plugin's own duration: apiserver_validating_admission_policy_check_duration_seconds observes a policy only when it denies or errors.
const SERVER_SIDE: Partial<Record<Guard, { metric: string; label: string }>> = {
  webhook: { metric: 'apiserver_admission_controller_admission_duration_seconds', label: 'name="ValidatingAdmissionWebhook"' },
  policy: { metric: 'apiserver_admission_controller_admission_duration_seconds', label: 'name="ValidatingAdmissionPolicy"' },
  'served-policy': { metric: 'apiserver_admission_controller_admission_duration_seconds', label: 'name="ValidatingAdmissionWebhook"' },
};

async function measureCell(plane: ControlPlane, agent: https.Agent, guard: Guard, requests: number, concurrency: number, maxSeconds: number): Promise<Cell> {
  const side = SERVER_SIDE[guard];
  const before = side && (await histogram(plane, side.metric, side.label));
  const load = await createLoad(plane, agent, namespaceOf(guard), requests, concurrency, maxSeconds);
  if (load.failures > 0) throw new Error(`${guard}: ${load.failures} of ${load.latenciesMs.length} creates failed, first: ${load.firstFailure}`);
  if (!side || !before) return { load };
  const after = await histogram(plane, side.metric, side.label);
  const calls = after.count - before.count;
  return { load, serverCalls: calls, serverMeanMs: calls > 0 ? ((after.sum - before.sum) / calls) * 1000 : Number.NaN };
}

async function measure(plane: ControlPlane, rounds: number, requests: number, concurrencies: readonly number[], maxSeconds: number): Promise<Results> {
  const results: Results = new Map();
  for (const concurrency of concurrencies) {
    const agent = apiAgent(plane, concurrency);
    try {
      log(`concurrency ${concurrency}: warm-up`);
      for (const guard of GUARDS) await createLoad(plane, agent, namespaceOf(guard), Math.max(50, concurrency * 4), concurrency, maxSeconds);
      const cells = new Map<Guard, Cell[]>(GUARDS.map((guard) => [guard, []]));
      for (let round = 0; round < rounds; round++) {
        const order = GUARDS.map((_, i) => GUARDS[(i + round) % GUARDS.length]!);
        log(`concurrency ${concurrency}: round ${round + 1}/${rounds} (${order.join(', ')})`);
        for (const guard of order) cells.get(guard)!.push(await measureCell(plane, agent, guard, requests, concurrency, maxSeconds));
      }
      results.set(concurrency, cells);
    } finally {
      agent.destroy();
    }
  }
  return results;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** "median (min–max)" over the rounds. */
function spread(values: readonly number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const fixed = (value: number) => value.toFixed(digits);
  return sorted.length === 1 ? fixed(sorted[0]!) : `${fixed(median(sorted))} (${fixed(sorted[0]!)}–${fixed(sorted.at(-1)!)})`;
}

function reportResults(report: Report, results: Results, rounds: number, requests: number, maxSeconds: number): Record<string, unknown> {
  report.line(
    `The same valid Profile, server-side dry-run created through kube-apiserver, ${requests} creates per cell (at most ${maxSeconds} s), ${rounds} interleaved rounds. ` +
      'Each figure: the median over the rounds, (the lowest–the highest). "+p50" and "÷ none" are per round, against the unguarded namespace of the same round. ' +
      "API-server time: its own mean duration of the guard's admission plugin per create, ValidatingAdmissionWebhook (webhook, served-policy) or ValidatingAdmissionPolicy (policy) (apiserver_admission_controller_admission_duration_seconds). " +
      'served-policy: the same policy as policy, enforced by `serve` through the webhook entry the chart renders with policies.enforcement=serve.',
  );
  const summary: Record<string, unknown> = {};
  for (const [concurrency, cells] of results) {
    const floor = cells.get('none')!;
    const rows = GUARDS.map((guard) => {
      const runs = cells.get(guard)!;
      const p50 = runs.map((cell) => percentile(cell.load.latenciesMs, 50));
      const p99 = runs.map((cell) => percentile(cell.load.latenciesMs, 99));
      const rps = runs.map((cell) => cell.load.latenciesMs.length / cell.load.seconds);
      const addedP50 = runs.map((_, i) => p50[i]! - percentile(floor[i]!.load.latenciesMs, 50));
      const ratio = runs.map((cell, i) => cell.load.latenciesMs.length / cell.load.seconds / (floor[i]!.load.latenciesMs.length / floor[i]!.load.seconds));
      const server = runs.flatMap((cell) => (cell.serverMeanMs === undefined ? [] : [cell.serverMeanMs]));
      summary[`${guard}@${concurrency}`] = {
        p50Ms: median(p50),
        p99Ms: median(p99),
        rps: median(rps),
        addedP50Ms: median(addedP50),
        rpsRatioToNone: median(ratio),
        serverMeanMs: server.length > 0 ? median(server) : undefined,
        ...(server.length > 0 && { serverCalls: runs.map((cell) => cell.serverCalls) }),
        requests: runs.map((cell) => cell.load.latenciesMs.length),
      };
      return [
        guard,
        spread(p50, 2),
        spread(p99, 2),
        spread(rps, 0),
        guard === 'none' ? '–' : spread(addedP50, 2),
        guard === 'none' ? '–' : spread(ratio, 2),
        server.length > 0 ? spread(server, 3) : '–',
      ];
    });
    report.line();
    report.line(`**${concurrency} in flight**`);
    report.line();
    report.table(['guard', 'p50 ms', 'p99 ms', 'creates/s', '+p50 ms vs none', 'creates/s ÷ none', 'API-server time in its plugin, mean ms'], rows);
  }
  return summary;
}

export default defineBenchmark({
  options: {
    rounds: { kind: 'number', default: 5, description: 'interleaved rounds (the order of the four guards rotates)' },
    requests: { kind: 'number', default: 400, description: 'dry-run creates per guard and round' },
    concurrency: { kind: 'numbers', default: [1, 16], description: 'creates in flight (one table each)' },
    'max-seconds': { kind: 'number', default: 15, description: 'a cell stops after this many seconds even if its creates are not all sent' },
  },
  // Waiting for a cluster test to finish is not the benchmark's time.
  async prepare() {
    lock = await holdClusterLock(log);
  },
  async main({ rounds, requests, concurrency: concurrencies, 'max-seconds': maxSeconds }, report) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-policy-bench-'));
    let plane: ControlPlane | undefined;
    let webhook: ServedWebhook | undefined;
    let servedPolicy: ServedWebhook | undefined;
    lock ??= await holdClusterLock(log);
    try {
      const chartDir = benchChart(work);
      const policyObjects = generatedPolicy(chartDir);
      // Loopback only: the API server's later --bind-address replaces kindEnv's 0.0.0.0 (which the node's network namespace needs).
      plane = await startControlPlane({ dir: path.join(work, 'cluster'), hostAddress: '127.0.0.1', log, certManager: false, apiServerArgs: ['--bind-address=127.0.0.1'] });
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(plane.kubeconfigPath);
      for (const namespace of namespaces()) await post(plane, '/api/v1/namespaces', namespace);
      await createSampleCrds(kubeConfig, namespaceOf('none'));
      webhook = await serveWebhook(work);
      await post(plane, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', webhook.configuration);
      servedPolicy = await servePolicy(work, chartDir, plane.kubeconfigPath);
      await post(plane, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', servedPolicy.configuration);
      for (const object of policyObjects) {
        const plural = (object as { kind: string }).kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings';
        await post(plane, `/apis/admissionregistration.k8s.io/v1/${plural}`, object);
      }
      const checkAgent = apiAgent(plane, 1);
      try {
        await waitForGuards(plane, checkAgent);
        await checkDecisions(plane, checkAgent, report);
      } finally {
        checkAgent.destroy();
      }
      const summary = reportResults(report, await measure(plane, rounds, requests, concurrencies, maxSeconds), rounds, requests, maxSeconds);
      mkdirSync(path.join(REPO_ROOT, 'bench/results'), { recursive: true });
      writeFileSync(
        path.join(REPO_ROOT, 'bench/results/policy-vs-webhook.json'),
        JSON.stringify({ when: new Date().toISOString(), rounds, requests, concurrencies, maxSeconds, cells: summary }, null, 2),
      );
    } finally {
      webhook?.child.kill('SIGKILL');
      servedPolicy?.child.kill('SIGKILL');
      await plane?.stop();
      lock.release();
      rmSync(work, { recursive: true, force: true });
    }
  },
});
