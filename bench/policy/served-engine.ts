/**
 * The CEL engine inside `shaper-gen serve` (node bench/run.ts served-policy-engine): what enforcing a policy in the
 * server costs. Two servers, the same but for `policies.served`, each `serve --dev --objects` on 127.0.0.1 pinned to
 * CPU 0 with the chart's NODE_OPTIONS and environment, both serving the sample's ProfileValidator (/validate-profile):
 * one also enforces two policies as the chart renders them with policies.enforcement=serve — the benchmark's
 * ProfileValidatorPolicy (the same checks as ProfileValidator, profile-validator-policy.ts) and the sample's
 * MutatingAdmissionPolicy (assignment-profile-label-policy); ctx.cache (the namespace, the Assignment CRD) comes from
 * an objects file instead of a cluster. Reported: the engine's load time and RSS as serve logs them, time to ready,
 * idle RSS of both, the first review of each policy, then under wrk (one thread on CPU 1, interleaved rounds) req/s,
 * p50/p99 and CPU µs per review of each served policy beside /validate-profile, and peak RSS. Before timing, each
 * path must allow the benchmark's bodies, the validating ones deny the same malformed Profile, and the mutating
 * policy's patch add the label it declares.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../support/free-port.ts';
import { waitFor } from '../../support/kindenv/processes.ts';
import { REPO_ROOT } from '../../support/repo-root.ts';
import { assignmentReview, profileReview } from '../admission/bodies.ts';
import { cpuTicks, median, rssMiB, untilIdle } from '../admission/servers.ts';
import { defineBenchmark } from '../support/benchmark.ts';
import { chartNodeOptions, chartProcessEnv } from '../support/chart-node-options.ts';
import type { Report } from '../support/report.ts';
import { runWrk, type WrkResult } from '../support/wrk.ts';
import { GUARD_LABEL } from './guard-label.ts';
import { benchChart, helmTemplate, PROFILE_VALIDATOR_HANDLERS, SAMPLE_CHART, servedPolicies, withNamespaceSelector, type ServedEntry } from './guards.ts';

const log = (line: string) => process.stderr.write(`served-policy-engine: ${line}\n`);
const SERVE_POLICIES = ['--set', 'policies.enforcement=serve'];
const MUTATING_POLICY = 'assignment-profile-label-policy.shaper.io';
const ENGINE_LOADED = 'CEL engine loaded for the served policies';
/** The namespace of the benchmark's reviews (bench/admission/bodies.ts), labelled for the validating policy's selector. */
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { [GUARD_LABEL]: 'served-policy', 'kubernetes.io/metadata.name': 'team-a' } } };

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly readyMs: number;
  /** serve's log line on loading the engine (ms, rssMiB), when it enforces policies. */
  engine?: { ms: number; rssMiB: number };
}

/** `serve --dev --objects` as described above; resolves once /readyz answers 200. */
async function startServe(work: string, name: string, objectsFile: string, served: readonly ServedEntry[]): Promise<Served> {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  const handlers = path.join(dir, 'handlers.mjs');
  writeFileSync(handlers, PROFILE_VALIDATOR_HANDLERS);
  const [port, health] = [await freePort(), await freePort()];
  const config = path.join(dir, 'server.yaml');
  writeFileSync(
    config,
    `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [${handlers}]
webhook: { port: ${port} }
health: { port: ${health} }
metrics: { port: 0 }
log: { level: info }
${served.length > 0 ? `policies: ${JSON.stringify({ served })}\n` : ''}`,
  );
  const started = performance.now();
  const child = spawn(
    'taskset',
    ['-c', '0', process.execPath, ...chartNodeOptions(REPO_ROOT), path.join(REPO_ROOT, 'dist/bin/shaper-gen.js'), 'serve', '--config', config, '--dev', '--objects', objectsFile],
    { cwd: REPO_ROOT, env: chartProcessEnv(REPO_ROOT), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const server: { -readonly [K in keyof Served]: Served[K] } = { child, port, readyMs: 0 };
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const entry = JSON.parse(line) as { msg?: string; ms?: number; rssMiB?: number; level?: number };
      if (entry.msg === ENGINE_LOADED) server.engine = { ms: entry.ms!, rssMiB: entry.rssMiB! };
      else if ((entry.level ?? 0) >= 40) process.stderr.write(`${name}: ${line}\n`);
    }
  });
  await waitFor(
    `${name} to be ready`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${name}: shaper-gen serve exited with ${child.exitCode}`);
      return (await status(health, '/readyz')) === 200 ? true : undefined;
    },
    120_000,
    100,
  );
  server.readyMs = performance.now() - started;
  return server;
}

function status(port: number, urlPath: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}

/** One AdmissionReview POSTed to `urlPath`: its response and the milliseconds it took. */
function review(port: number, urlPath: string, body: object): Promise<{ response: any; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: urlPath, method: 'POST', agent: false, rejectUnauthorized: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new Error(`${urlPath}: HTTP ${res.statusCode} ${text.slice(0, 300)}`));
        resolve({ response: (JSON.parse(text) as { response: unknown }).response, ms: performance.now() - started });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

interface Workload {
  readonly name: string;
  readonly path: string;
  readonly body: string;
  /** Which server: the one enforcing policies, or the same without them. */
  readonly server: 'with' | 'without';
}

/** The Profile the checks refuse (cpu not a quantity), as a review. */
function malformedProfileReview(): object {
  const body = profileReview('a05ab4f5-6393-11e8-b7cc-42010a800005');
  (body.request.object as { spec: { resources: { cpu: string } } }).spec.resources.cpu = 'lots';
  return body;
}

/**
 * Each path's answers before anything is timed: every body allowed; the malformed Profile denied by ProfileValidator
 * and by the served ProfileValidatorPolicy; the mutating policy's patch adds shaper.io/profile. Returns the first
 * review's time at each served policy (the engine compiles a policy when first asked).
 */
async function checkAnswers(report: Report, port: number, workloads: readonly Workload[], bodies: Record<string, object>): Promise<Map<string, number>> {
  const first = new Map<string, number>();
  const rows: string[][] = [];
  for (const workload of workloads.filter((candidate) => candidate.server === 'with')) {
    const { response, ms } = await review(port, workload.path, bodies[workload.body]!);
    if (workload.path !== '/validate-profile') first.set(workload.name, ms);
    if (response.allowed !== true) throw new Error(`${workload.name}: the benchmark's ${workload.body} was not allowed: ${JSON.stringify(response)}`);
    let outcome: string;
    if (workload.body === 'assignment') {
      const patch = JSON.parse(Buffer.from(String(response.patch ?? ''), 'base64').toString('utf8') || '[]') as { op: string; path: string; value?: unknown }[];
      const labelled = patch.some(
        (op) => op.op === 'add' && (op.path === '/metadata/labels/shaper.io~1profile' ? op.value === 'gold' : (op.value as Record<string, string> | undefined)?.['shaper.io/profile'] === 'gold'),
      );
      if (!labelled) throw new Error(`${workload.name}: expected a patch adding the label shaper.io/profile: gold, got ${JSON.stringify(patch)}`);
      outcome = `allowed, patch ${JSON.stringify(patch)}`;
    } else {
      const denied = (await review(port, workload.path, malformedProfileReview())).response;
      if (denied.allowed !== false) throw new Error(`${workload.name}: the malformed Profile (cpu "lots") was allowed`);
      outcome = `allowed; cpu "lots" denied ${denied.status?.code}: ${denied.status?.message}`;
    }
    rows.push([workload.name, outcome]);
  }
  report.line('Answers checked before timing:');
  report.line();
  report.table(['path', 'answer'], rows);
  report.line();
  return first;
}

interface Cell {
  readonly wrk: WrkResult;
  /** The server's user and system CPU per review, µs. */
  readonly cpuUs: number;
}

export default defineBenchmark({
  options: {
    rounds: { kind: 'number', default: 3, description: 'interleaved rounds (the order of the paths rotates)' },
    duration: { kind: 'number', default: 5, description: 'seconds per wrk cell' },
    connections: { kind: 'numbers', default: [1, 32], description: 'wrk connections (one table each)' },
    'idle-seconds': { kind: 'number', default: 15, description: 'seconds both servers are left alone once ready, before idle RSS and CPU are read' },
  },
  async main({ rounds, duration, connections: connectionCounts, 'idle-seconds': idleSeconds }, report) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-served-engine-'));
    const servers: Served[] = [];
    try {
      const validating = servedPolicies(benchChart(work), SERVE_POLICIES).map((entry) => withNamespaceSelector(entry, { matchLabels: { [GUARD_LABEL]: 'served-policy' } }));
      const mutating = servedPolicies(SAMPLE_CHART, SERVE_POLICIES).filter((entry) => entry.path.endsWith(`-policy-${MUTATING_POLICY}`));
      if (validating.length !== 1 || mutating.length !== 1)
        throw new Error(`expected one validating and one mutating served policy, the charts render ${validating.length} and ${mutating.length}`);
      const crd = helmTemplate(SAMPLE_CHART, ['--show-only', 'templates/crds/shaper.io_assignments.yaml']);
      const objectsFile = path.join(work, 'objects.yaml');
      writeFileSync(objectsFile, JSON.stringify({ namespaces: [NAMESPACE], 'customresourcedefinitions.apiextensions.k8s.io': crd }));
      const bodies = { profile: profileReview(), assignment: assignmentReview() };
      const bodyFiles: Record<string, string> = {};
      for (const [name, body] of Object.entries(bodies)) writeFileSync((bodyFiles[name] = path.join(work, `${name}.json`)), JSON.stringify(body));

      // One after the other, so that the engine's load does not slow the other's start; idle RSS is read once both have idled.
      log('starting serve without and with the served policies');
      const without = await startServe(work, 'without', objectsFile, []);
      const withPolicies = await startServe(work, 'with', objectsFile, [...validating, ...mutating]);
      servers.push(without, withPolicies);
      const workloads: Workload[] = [
        { name: 'ProfileValidator webhook', path: '/validate-profile', body: 'profile', server: 'with' },
        { name: 'served ProfileValidatorPolicy', path: validating[0]!.path, body: 'profile', server: 'with' },
        { name: `served ${MUTATING_POLICY}`, path: mutating[0]!.path, body: 'assignment', server: 'with' },
        { name: 'ProfileValidator webhook, server without policies', path: '/validate-profile', body: 'profile', server: 'without' },
      ];
      // Idle first: the answers check below compiles the policies.
      const [idleWithout, idleWith] = await Promise.all([idleFor(without, idleSeconds), idleFor(withPolicies, idleSeconds)]);
      const idle = { without: idleWithout, with: idleWith };
      const firstReview = await checkAnswers(report, withPolicies.port, workloads, bodies);
      const afterFirst = { rss: rssMiB(withPolicies.child.pid!, 'VmRSS'), anon: rssMiB(withPolicies.child.pid!, 'RssAnon') };

      const pids = servers.map((server) => server.child.pid!);
      const results = new Map<number, Map<string, Cell[]>>();
      for (const connections of connectionCounts) {
        const cells = new Map<string, Cell[]>(workloads.map((workload) => [workload.name, []]));
        log(`${connections} connections: warm-up`);
        for (const workload of workloads)
          runWrk({ port: (workload.server === 'with' ? withPolicies : without).port, urlPath: workload.path, bodyFile: bodyFiles[workload.body]!, connections, seconds: 1 });
        await untilIdle(pids);
        for (let round = 0; round < rounds; round++) {
          const order = workloads.map((_, i) => workloads[(i + round) % workloads.length]!);
          log(`${connections} connections: round ${round + 1}/${rounds}`);
          for (const workload of order) {
            cells.get(workload.name)!.push(measureCell(workload.server === 'with' ? withPolicies : without, workload, bodyFiles[workload.body]!, connections, duration));
            await untilIdle(pids);
          }
        }
        results.set(connections, cells);
      }
      const peak = { without: rssMiB(without.child.pid!, 'VmHWM'), with: rssMiB(withPolicies.child.pid!, 'VmHWM') };

      reportStart(report, without, withPolicies, idle, afterFirst, peak, firstReview);
      reportLoad(report, results, rounds, duration);
    } finally {
      for (const server of servers) server.child.kill('SIGKILL');
      rmSync(work, { recursive: true, force: true });
    }
  },
});

interface Rss {
  rss: number;
  anon: number;
}
interface Idle extends Rss {
  /** CPU ms per second. */
  cpu: number;
}

/** RSS and CPU of a server left alone for `seconds`. */
async function idleFor(server: Served, seconds: number): Promise<Idle> {
  const pid = server.child.pid!;
  const [ticks, started] = [cpuTicks([pid]), performance.now()];
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  // CPU ms per second while nothing is asked (10 ms a tick): timers, GC, and the engine's own goroutines.
  const cpu = ((cpuTicks([pid]) - ticks) * 10) / Math.max(1, (performance.now() - started) / 1000);
  return { rss: rssMiB(pid, 'VmRSS'), anon: rssMiB(pid, 'RssAnon'), cpu };
}

function measureCell(server: Served, workload: Workload, bodyFile: string, connections: number, seconds: number): Cell {
  const ticks = cpuTicks([server.child.pid!]);
  const result = runWrk({ port: server.port, urlPath: workload.path, bodyFile, connections, seconds });
  if (result.errors > 0 || result.rps === 0) throw new Error(`${workload.name}: ${result.errors} wrk errors, ${result.rps.toFixed(0)} answers/s`);
  return { wrk: result, cpuUs: ((cpuTicks([server.child.pid!]) - ticks) * 10_000) / (result.rps * seconds) };
}

function reportStart(
  report: Report,
  without: Served,
  withPolicies: Served,
  idle: { without: Idle; with: Idle },
  afterFirst: Rss,
  peak: { without: number; with: number },
  first: Map<string, number>,
): void {
  const mib = (value: number) => value.toFixed(1);
  report.line(
    `CEL engine load in serve (its log line "${ENGINE_LOADED}"): ${withPolicies.engine ? `${withPolicies.engine.ms} ms, RSS ${withPolicies.engine.rssMiB} MiB just after` : 'not logged'}. ` +
      `Start to /readyz 200: ${without.readyMs.toFixed(0)} ms without served policies, ${withPolicies.readyMs.toFixed(0)} ms with.`,
  );
  report.line();
  report.table(
    ['server', 'idle RSS MiB', 'idle anonymous MiB', 'idle CPU ms/s', 'RSS after the first reviews MiB', 'peak RSS under load MiB'],
    [
      ['without served policies', mib(idle.without.rss), mib(idle.without.anon), mib(idle.without.cpu), '–', mib(peak.without)],
      ['with 2 served policies', mib(idle.with.rss), mib(idle.with.anon), mib(idle.with.cpu), mib(afterFirst.rss), mib(peak.with)],
      ['difference', mib(idle.with.rss - idle.without.rss), mib(idle.with.anon - idle.without.anon), mib(idle.with.cpu - idle.without.cpu), '–', mib(peak.with - peak.without)],
    ],
  );
  report.line();
  report.line(
    `First review of each served policy (policies are compiled at start; a mutation's first review builds the type converter its object is merged by): ${[...first].map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`).join(', ')}.`,
  );
}

function reportLoad(report: Report, results: Map<number, Map<string, Cell[]>>, rounds: number, duration: number): void {
  report.line();
  report.line(
    `Under wrk (one thread on CPU 1, servers on CPU 0, keep-alive), ${rounds} interleaved rounds × ${duration} s per cell; medians over the rounds, (lowest–highest). ` +
      'CPU µs per review: the server process\'s user and system time over the reviews wrk counted. "× webhook": per round, against ProfileValidator on the same server.',
  );
  const spread = (values: readonly number[], digits: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 1 ? sorted[0]!.toFixed(digits) : `${median(sorted).toFixed(digits)} (${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
  };
  for (const [connections, cells] of results) {
    const reference = cells.values().next().value!;
    report.line();
    report.line(`**${connections} connection${connections === 1 ? '' : 's'}**`);
    report.line();
    report.table(
      ['path', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/review', 'CPU × webhook'],
      [...cells].map(([name, runs]) => [
        name,
        spread(
          runs.map((cell) => cell.wrk.rps),
          0,
        ),
        spread(
          runs.map((cell) => cell.wrk.p50Ms),
          2,
        ),
        spread(
          runs.map((cell) => cell.wrk.p99Ms),
          2,
        ),
        spread(
          runs.map((cell) => cell.cpuUs),
          0,
        ),
        spread(
          runs.map((cell, i) => cell.cpuUs / reference[i]!.cpuUs),
          2,
        ),
      ]),
    );
  }
}
