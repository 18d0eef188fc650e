/**
 * Admission load: the framework (`shaper-gen serve` with bench/admission/handlers.ts)
 * against the floor (bench/admission/floor-server.ts, bare node:https, compiled like serve) and the
 * controller-runtime peer (bench/peers/controller-runtime, GOMAXPROCS=1), on
 * loopback over HTTPS with keep-alive; servers pinned to CPU 0, wrk to CPU 1.
 * Interleaved rounds; the median of each figure and of each per-round ratio
 * to the floor with the same body is reported. Before timing, serve and the
 * peer must answer every case of equivalence-cases.ts alike; afterwards the
 * peer runs once more at GOMAXPROCS=2, unpinned, beside `serve --workers 2`.
 *
 *   node bench/admission/run.ts [--rounds 3] [--duration 3] [--connections 1,8,32,128] [--no-peer] [--profile [--profile-path /validate-assignment] [--profile-body profile|assignment|large]]
 *
 * --profile instead runs serve under --cpu-prof with the 32-connection
 * validate load and prints the self time by module and the top functions.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assignmentReview, largeProfileReview, profileReview } from './bodies.ts';
import { PEER_SOURCE_DIR, peerArguments, peerBinary } from './controller-runtime-peer.ts';
import { checkEquivalence, formatEquivalence, type EquivalenceResult } from './equivalence.ts';
import { summariseProfile } from './profile-summary.ts';
import { admissionTargets, formatTargets } from './targets.ts';
import { chartNodeOptions, chartProcessEnv } from '../support/chart-node-options.ts';
import { writeSelfSignedCertificate } from '../support/self-signed-certificate.ts';
import { runWrk, type WrkResult } from '../support/wrk.ts';
import { freePort } from '../../support/free-port.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argument = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
};
const rounds = Number(argument('rounds', '3'));
const duration = Number(argument('duration', '3'));
const connections = argument('connections', '1,8,32,128').split(',').map(Number);
const profileMode = process.argv.includes('--profile');
const expressMode = process.argv.includes('--express-comparison');
const withPeer = !process.argv.includes('--no-peer');
/** How long after starting the servers their idle memory is read. */
const IDLE_AGE_MS = 15_000;
/** The connections of the one extra comparison on both CPUs (peer at GOMAXPROCS=2, serve --workers 2). */
const MULTICORE_CONNECTIONS = 32;
// V8 flags for both servers (floor and framework alike): the chart's, as deployed.
const flagsGiven = process.argv.includes('--node-flags') ? argument('node-flags', '') : process.env.SHAPER_BENCH_NODE_FLAGS;
const nodeFlags = flagsGiven === undefined ? chartNodeOptions(repo) : flagsGiven.split(' ').filter(Boolean);
// The rest of the chart's container environment, for every server alike.
const processEnv = chartProcessEnv(repo);

const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-bench-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

function writeBodies() {
  const bodies = { profile: profileReview(), assignment: assignmentReview(), large: largeProfileReview() };
  const files: Record<keyof typeof bodies, string> = { profile: '', assignment: '', large: '' };
  for (const [name, body] of Object.entries(bodies) as [keyof typeof bodies, unknown][]) {
    files[name] = path.join(work, `${name}.json`);
    writeFileSync(files[name], JSON.stringify(body));
  }
  return files;
}

function pinned(cpu: number, command: string, args: string[], extra: Parameters<typeof spawn>[2] = {}): ChildProcess {
  const child = spawn('taskset', ['-c', String(cpu), command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: processEnv, ...extra });
  children.push(child);
  return child;
}

interface Server {
  port: number;
  pid: number;
  child: ChildProcess;
}

async function startFloor(cert: string, key: string): Promise<Server> {
  const child = pinned(0, process.execPath, [...nodeFlags, path.join(repo, 'dist/bench/admission/floor-server.js'), cert, key]);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { port: Number(/listening (\d+)/.exec(line.toString())![1]), pid: child.pid!, child };
}

/** The controller-runtime peer: pinned to CPU 0 with GOMAXPROCS=1 like the others, or on both CPUs with GOMAXPROCS=2. */
async function startPeer(binary: string, certDir: string, placement: 'pinned' | 'both-cpus'): Promise<Server> {
  const port = await freePort();
  const options: SpawnOptions = { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GOMAXPROCS: placement === 'pinned' ? '1' : '2' } };
  let child: ChildProcess;
  if (placement === 'pinned') child = pinned(0, binary, peerArguments(port, certDir), options);
  else children.push((child = spawn(binary, peerArguments(port, certDir), options)));
  // wrk drops the connections it is still opening when its time is up, and net/http logs each one.
  child.stderr!.on('data', (chunk: Buffer) => {
    const lines = chunk
      .toString()
      .split('\n')
      .filter((line) => line && !/http: TLS handshake error from [\d.:]+: EOF$/.test(line));
    if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
  });
  let output = '';
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`listening ${port}`)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the controller-runtime peer exited (${code}) before serving`)));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the controller-runtime peer did not serve within 20 s')), 20_000)));
  try {
    await Promise.race([listening, timeout]);
  } finally {
    clearTimeout(timer);
  }
  return { port, pid: child.pid!, child };
}

/** `shaper-gen serve`: one process pinned to CPU 0, or with `workers` > 1 processes on both CPUs. */
async function startFramework(certDir: string, extraFlags: string[] = [], workers = 1): Promise<Server> {
  const [port, health] = [await freePort(), await freePort()];
  const config = path.join(work, 'server.yaml');
  writeFileSync(
    config,
    `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [dist/bench/admission/handlers.js]
webhook: { bindAddress: 127.0.0.1, port: ${port}, certDir: ${certDir} }
health: { bindAddress: 127.0.0.1, port: ${health} }
metrics: { port: 0 }
shutdown: { drainSeconds: 0, timeoutSeconds: 5 }
log: { level: warn }
`,
  );
  const args = [...nodeFlags, ...extraFlags, path.join(repo, 'dist/bin/shaper-gen.js'), 'serve', '--config', config, ...(workers > 1 ? ['--workers', String(workers)] : [])];
  const options: SpawnOptions = { cwd: repo, env: processEnv, stdio: ['ignore', 'inherit', 'inherit'] };
  let child: ChildProcess;
  if (workers === 1) child = pinned(0, process.execPath, args, options);
  else children.push((child = spawn(process.execPath, args, options)));
  const until = Date.now() + 20_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get({ host: '127.0.0.1', port: health, path: '/readyz', agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > until || child.exitCode !== null) throw new Error('shaper-gen serve did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, pid: child.pid!, child };
}

/** One wrk cell; `body` is the path of the file holding the request body. */
function wrk(port: number, urlPath: string, body: string, conns: number, seconds: number): WrkResult {
  return runWrk({ port, urlPath, bodyFile: body, connections: conns, seconds });
}

/** CPU time the processes have used so far, in clock ticks (utime + stime, fields 14 and 15 of /proc/<pid>/stat). */
function cpuTicks(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    total += Number(fields[11]) + Number(fields[12]);
  }
  return total;
}

/**
 * Waits (at most 15 s) until the servers stop using CPU. A server still working through requests wrk
 * gave up on (the peer's 200 KB defaulter at 128 connections has seconds of them) would otherwise take
 * CPU 0 from the next cell.
 */
async function untilIdle(pids: readonly number[]): Promise<void> {
  const until = Date.now() + 15_000;
  let before = cpuTicks(pids);
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuTicks(pids);
    // At most 20 ms of CPU in 200 ms (at 100 ticks a second): timers and GC, no requests.
    if (now - before <= 2) return;
    before = now;
  }
  process.stderr.write('servers still busy after 15 s; going on\n');
}

const rssMiB = (pid: number, field: 'VmRSS' | 'VmHWM') => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Workload {
  name: string;
  server: 'floor' | 'framework' | 'peer';
  path: string;
  body: 'profile' | 'assignment' | 'large';
}

const PEER = 'controller-runtime';
const ALL_WORKLOADS: Workload[] = [
  { name: 'floor (profile body)', server: 'floor', path: '/', body: 'profile' },
  { name: 'allow-all', server: 'framework', path: '/validate-allow-all', body: 'profile' },
  { name: `allow-all, ${PEER}`, server: 'peer', path: '/validate-allow-all', body: 'profile' },
  { name: 'mutate-profile', server: 'framework', path: '/mutate-profile', body: 'profile' },
  { name: `mutate-profile, ${PEER}`, server: 'peer', path: '/mutate-profile', body: 'profile' },
  { name: 'validate-profile', server: 'framework', path: '/validate-profile', body: 'profile' },
  { name: `validate-profile, ${PEER}`, server: 'peer', path: '/validate-profile', body: 'profile' },
  { name: 'floor (assignment body)', server: 'floor', path: '/', body: 'assignment' },
  { name: 'validate-assignment', server: 'framework', path: '/validate-assignment', body: 'assignment' },
  { name: 'floor (200 KB body)', server: 'floor', path: '/', body: 'large' },
  { name: 'mutate-profile (200 KB)', server: 'framework', path: '/mutate-profile', body: 'large' },
  { name: `mutate-profile (200 KB), ${PEER}`, server: 'peer', path: '/mutate-profile', body: 'large' },
];

/** sigs.k8s.io/controller-runtime as the peer's go.mod requires it. */
function controllerRuntimeVersion(): string {
  return /^\s*sigs\.k8s\.io\/controller-runtime (v\S+)/m.exec(readFileSync(path.join(PEER_SOURCE_DIR, 'go.mod'), 'utf8'))?.[1] ?? 'unknown';
}

/** Fails the run, loudly, unless serve and the peer answered every case alike. */
async function requireEquivalence(serve: Server, peer: Server, label: string, printCases: boolean): Promise<EquivalenceResult> {
  const endpoints = [
    { name: 'serve', port: serve.port },
    { name: PEER, port: peer.port },
  ] as const;
  const result = await checkEquivalence(...endpoints);
  if (result.mismatches.length > 0) {
    console.error(formatEquivalence(result, ...endpoints));
    throw new Error(`serve and the ${PEER} peer (${label}) answered ${result.mismatches.length} of ${result.cases} equivalence cases differently; nothing was timed`);
  }
  console.log(`\nEquivalence (${label}): serve and the ${PEER} peer agree on all ${result.cases} cases${printCases ? `\n\n${formatEquivalence(result, ...endpoints)}` : ''}`);
  return result;
}

async function main() {
  const bodies = writeBodies();
  const { cert, key } = writeSelfSignedCertificate(work);
  const certDir = path.dirname(cert);

  if (profileMode) {
    const webhook = argument('profile-path', '/validate-assignment');
    const body = argument('profile-body', webhook.endsWith('assignment') ? 'assignment' : 'profile') as keyof typeof bodies;
    return profile(certDir, webhook, bodies[body]);
  }
  if (expressMode) return expressComparison(cert, key, certDir, bodies);

  const binary = withPeer ? peerBinary() : { unavailable: 'left out (--no-peer)' };
  if (binary.path === undefined) process.stderr.write(`the ${PEER} peer: ${binary.unavailable}; running without it\n`);
  const workloads = ALL_WORKLOADS.filter((w) => w.server !== 'peer' || binary.path !== undefined);

  // Small and large bodies go to separate server processes: V8 keeps the heap a 200 KB workload grew,
  // which would otherwise be charged to the small-body workloads that follow it.
  const servers = {
    floor: { small: await startFloor(cert, key), large: await startFloor(cert, key) },
    framework: { small: await startFramework(certDir), large: await startFramework(certDir) },
    peer: binary.path === undefined ? undefined : { small: await startPeer(binary.path, certDir, 'pinned'), large: await startPeer(binary.path, certDir, 'pinned') },
  };
  const serverOf = (w: Workload) => servers[w.server]![w.body === 'large' ? 'large' : 'small'];
  const idleOf = () => ({
    floorMiB: rssMiB(servers.floor.small.pid, 'VmRSS'),
    frameworkMiB: rssMiB(servers.framework.small.pid, 'VmRSS'),
    ...(servers.peer ? { peerMiB: rssMiB(servers.peer.small.pid, 'VmRSS') } : {}),
  });
  // Idle as a pod sits between requests: V8 shrinks a new process's heap over its first seconds, so every
  // server is measured at the same age rather than the moment it answers.
  await new Promise((resolve) => setTimeout(resolve, IDLE_AGE_MS));
  const idle = idleOf();

  let equivalence: EquivalenceResult | undefined;
  if (servers.peer) {
    equivalence = await requireEquivalence(servers.framework.small, servers.peer.small, 'instances for 1-2 KB bodies', true);
    await requireEquivalence(servers.framework.large, servers.peer.large, 'instances for the 200 KB body', false);
  }

  process.stderr.write('warm-up\n');
  const serverPids = workloads.map((w) => serverOf(w).pid);
  for (const w of workloads) wrk(serverOf(w).port, w.path, bodies[w.body], 8, 1);
  await untilIdle(serverPids);
  const idleAfterWarmup = idleOf();

  const samples = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const conns of connections) {
      for (const w of workloads) {
        process.stderr.write(`round ${round}/${rounds} c=${conns} ${w.name}\n`);
        const key = `${w.name}@${conns}`;
        samples.set(key, [...(samples.get(key) ?? []), wrk(serverOf(w).port, w.path, bodies[w.body], conns, duration)]);
        await untilIdle(serverPids);
      }
    }
  }
  const peak = {
    floorMiB: rssMiB(servers.floor.small.pid, 'VmHWM'),
    frameworkMiB: rssMiB(servers.framework.small.pid, 'VmHWM'),
    floorLargeBodyMiB: rssMiB(servers.floor.large.pid, 'VmHWM'),
    frameworkLargeBodyMiB: rssMiB(servers.framework.large.pid, 'VmHWM'),
    ...(servers.peer ? { peerMiB: rssMiB(servers.peer.small.pid, 'VmHWM'), peerLargeBodyMiB: rssMiB(servers.peer.large.pid, 'VmHWM') } : {}),
  };

  const floorFor = (w: Workload) => workloads.find((f) => f.server === 'floor' && f.body === w.body)!;
  const rows = [];
  for (const conns of connections) {
    for (const w of workloads) {
      const runs = samples.get(`${w.name}@${conns}`)!;
      const floorRuns = samples.get(`${floorFor(w).name}@${conns}`)!;
      rows.push({
        workload: w.name,
        server: w.server,
        connections: conns,
        rps: median(runs.map((r) => r.rps)),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        p999Ms: median(runs.map((r) => r.p999Ms)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
        ratioToFloor: w.server === 'floor' ? 1 : median(runs.map((r, i) => r.rps / floorRuns[i]!.rps)),
      });
    }
  }

  const table = [
    '| workload | conns | req/s | × floor | p50 ms | p99 ms | p99.9 ms | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) => `| ${r.workload} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.ratioToFloor.toFixed(2)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.p999Ms.toFixed(2)} | ${r.errors} |`,
    ),
  ].join('\n');
  const peerMiB = (value: number | undefined) => (value === undefined ? '' : `, ${PEER} ${value.toFixed(1)}`);
  const memory = [
    `RSS (MiB) idle: floor ${idle.floorMiB.toFixed(1)}, shaper-gen serve ${idle.frameworkMiB.toFixed(1)} (${idleAfterWarmup.frameworkMiB.toFixed(1)} after warm-up)${peerMiB(idle.peerMiB)}${idleAfterWarmup.peerMiB === undefined ? '' : ` (${idleAfterWarmup.peerMiB.toFixed(1)} after warm-up)`}`,
    `Peak RSS (MiB) over the whole run, the instances serving 1-2 KB bodies: floor ${peak.floorMiB.toFixed(1)}, shaper-gen serve ${peak.frameworkMiB.toFixed(1)}${peerMiB(peak.peerMiB)}; the instances serving the 200 KB body: floor ${peak.floorLargeBodyMiB.toFixed(1)}, shaper-gen serve ${peak.frameworkLargeBodyMiB.toFixed(1)}${peerMiB(peak.peerLargeBodyMiB)}`,
  ].join('\n');
  const peerNote = servers.peer ? `; ${PEER} ${controllerRuntimeVersion()} peer at GOMAXPROCS=1` : '';
  console.log(
    `\nAdmission load: ${rounds} interleaved rounds × ${duration} s per cell, medians; servers on CPU 0, wrk on CPU 1; Node ${process.version}${nodeFlags.length ? `; node flags ${nodeFlags.join(' ')}` : ''}${peerNote}\n`,
  );
  console.log(table);
  console.log(`\n${memory}\n`);

  const multicore = binary.path === undefined ? undefined : await multicoreComparison(binary.path, certDir, servers.floor.small, servers.framework.small, bodies);

  const targets = admissionTargets(rows, { idle, peak }, multicore);
  console.log(`Targets (issue 11; throughput and p99 at 32 connections, ratios are medians of per-round ratios)\n\n${formatTargets(targets)}\n`);

  const out = path.join(repo, 'bench/results');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, 'admission.json');
  const peer = servers.peer && {
    controllerRuntime: controllerRuntimeVersion(),
    go: (spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', timeout: 30_000 }).stdout as string | null)?.trim() || undefined,
    binary: binary.path,
    builtInMs: 'builtInMs' in binary ? binary.builtInMs : undefined,
    equivalence: equivalence && { cases: equivalence.cases, mismatches: equivalence.mismatches.length, rows: equivalence.rows },
    multicore,
  };
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, nodeFlags, rounds, durationSeconds: duration, rows, rss: { idle, idleAfterWarmup, peak }, peer, targets }, null, 2)}\n`,
  );
  console.log(`wrote ${path.relative(repo, file)}`);
}

/**
 * The peer once more, at GOMAXPROCS=2 and not pinned (both CPUs, wrk still on CPU 1), beside serve as
 * measured above (one process on CPU 0) and `serve --workers 2` on both CPUs.
 */
async function multicoreComparison(binary: string, certDir: string, floor: Server, serve: Server, bodies: Record<'profile' | 'assignment' | 'large', string>) {
  const peer = await startPeer(binary, certDir, 'both-cpus');
  const serveWorkers = await startFramework(certDir, [], 2);
  const cells = [{ name: 'floor (profile body), CPU 0', port: floor.port, path: '/' }];
  for (const [workload, urlPath] of [
    ['allow-all', '/validate-allow-all'],
    ['mutate-profile', '/mutate-profile'],
    ['validate-profile', '/validate-profile'],
  ] as const) {
    cells.push(
      { name: `${workload}, serve on CPU 0`, port: serve.port, path: urlPath },
      { name: `${workload}, serve --workers 2 unpinned`, port: serveWorkers.port, path: urlPath },
      { name: `${workload}, ${PEER} GOMAXPROCS=2 unpinned`, port: peer.port, path: urlPath },
    );
  }
  // serve --workers 2: its primary only; the workers are its children, and their backlog is short anyway.
  const serverPids = [floor.pid, serve.pid, serveWorkers.pid, peer.pid];
  for (const cell of cells) wrk(cell.port, cell.path, bodies.profile, 8, 1);
  await untilIdle(serverPids);
  const runs = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const cell of cells) {
      process.stderr.write(`GOMAXPROCS=2 comparison, round ${round}/${rounds} ${cell.name}\n`);
      runs.set(cell.name, [...(runs.get(cell.name) ?? []), wrk(cell.port, cell.path, bodies.profile, MULTICORE_CONNECTIONS, duration)]);
      await untilIdle(serverPids);
    }
  }
  const floorRuns = runs.get(cells[0]!.name)!;
  const rows = cells.map((cell) => {
    const own = runs.get(cell.name)!;
    return {
      workload: cell.name,
      connections: MULTICORE_CONNECTIONS,
      rps: median(own.map((r) => r.rps)),
      ratioToFloor: median(own.map((r, i) => r.rps / floorRuns[i]!.rps)),
      p99Ms: median(own.map((r) => r.p99Ms)),
      errors: own.reduce((sum, r) => sum + r.errors, 0),
    };
  });
  const peakMiB = rssMiB(peer.pid, 'VmHWM');
  console.log(
    `\n${PEER} at GOMAXPROCS=2 and serve --workers 2 on both CPUs (wrk still on CPU 1), beside serve as a single process on CPU 0: ${MULTICORE_CONNECTIONS} connections, profile body, ${rounds} rounds × ${duration} s, medians\n`,
  );
  console.log('| workload | req/s | × floor | p99 ms | errors |\n|---|---:|---:|---:|---:|');
  for (const row of rows) console.log(`| ${row.workload} | ${row.rps.toFixed(0)} | ${row.ratioToFloor.toFixed(2)} | ${row.p99Ms.toFixed(2)} | ${row.errors} |`);
  console.log(`\nPeak RSS of the GOMAXPROCS=2 peer: ${peakMiB.toFixed(1)} MiB\n`);
  return { rows, peakMiB };
}

/** Before/after: the admission endpoints behind Express's router versus the raw-path fast path, same process layout. */
async function expressComparison(cert: string, key: string, certDir: string, bodies: Record<'profile' | 'assignment' | 'large', string>) {
  const floor = await startFloor(cert, key);
  const fast = await startFramework(certDir);
  const child = pinned(0, process.execPath, [...nodeFlags, path.join(repo, 'dist/bench/admission/express-routed-server.js'), certDir], { cwd: repo });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const viaExpress = { port: Number(/listening (\d+)/.exec(line.toString())![1]) };
  const cells = [
    { name: 'floor (profile body)', port: floor.port, path: '/', body: bodies.profile },
    { name: 'allow-all, fast path', port: fast.port, path: '/validate-allow-all', body: bodies.profile },
    { name: 'allow-all, Express router', port: viaExpress.port, path: '/validate-allow-all', body: bodies.profile },
    { name: 'floor (assignment body)', port: floor.port, path: '/', body: bodies.assignment },
    { name: 'validate-assignment, fast path', port: fast.port, path: '/validate-assignment', body: bodies.assignment },
    { name: 'validate-assignment, Express router', port: viaExpress.port, path: '/validate-assignment', body: bodies.assignment },
  ];
  for (const cell of cells) wrk(cell.port, cell.path, cell.body, 8, 1);
  const runs = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const cell of cells) runs.set(cell.name, [...(runs.get(cell.name) ?? []), wrk(cell.port, cell.path, cell.body, 32, duration)]);
  }
  console.log(`\nExpress router (before) versus fast path (after): 32 connections, ${rounds} rounds × ${duration} s, medians\n`);
  console.log('| workload | req/s | × floor | p99 ms |\n|---|---:|---:|---:|');
  for (const cell of cells) {
    const floorName = cell.body === bodies.profile ? 'floor (profile body)' : 'floor (assignment body)';
    const own = runs.get(cell.name)!;
    const ratio = median(own.map((r, i) => r.rps / runs.get(floorName)![i]!.rps));
    console.log(`| ${cell.name} | ${median(own.map((r) => r.rps)).toFixed(0)} | ${ratio.toFixed(2)} | ${median(own.map((r) => r.p99Ms)).toFixed(2)} |`);
  }
}

async function profile(certDir: string, webhook: string, body: string) {
  const dir = path.join(work, 'cpu-prof');
  const framework = await startFramework(certDir, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  wrk(framework.port, webhook, body, 32, 2);
  const result = wrk(framework.port, webhook, body, 32, 10);
  framework.child.kill('SIGTERM');
  await once(framework.child, 'exit');
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
  console.log(`\nCPU profile of shaper-gen serve, ${webhook} at 32 connections (${result.rps.toFixed(0)} req/s during the profiled run)\n`);
  console.log(summariseProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), repo));
}

await main();
// The servers are still running (the exit handler stops them); do not wait for them.
process.exit(0);
