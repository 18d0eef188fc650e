/**
 * Admission load (node bench/run.ts admission): the framework (`shaper-gen
 * serve` with handlers.ts) against the floor (floor-server.ts, bare
 * node:https, compiled like serve), the same work written by hand
 * (hand-written-server.ts; and, for information, the same code after the
 * other work a deployable server does, hand-written-busy-server.ts) and the
 * controller-runtime peer (bench/peers/controller-runtime, GOMAXPROCS=1), on
 * loopback over HTTPS with keep-alive; servers pinned to CPU 0, wrk to CPU 1
 * (servers.ts). Interleaved rounds; the median of each figure and of each
 * per-round ratio to the floor with the same body is reported. Before timing,
 * serve and the peer must answer every case of equivalence-cases.ts alike;
 * afterwards the peer runs once more at GOMAXPROCS=2, unpinned, beside
 * `serve --workers 2`. Ends with issue 11's targets (targets.ts). Also writes
 * bench/results/admission.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';
import type { WrkResult } from '../support/wrk.ts';
import { PEER_SOURCE_DIR, peerBinary, type PeerBinary } from './controller-runtime-peer.ts';
import { equivalenceCases } from './equivalence-cases.ts';
import { checkEquivalence, formatEquivalence, type EquivalenceResult } from './equivalence.ts';
import { cpuTicks, createServers, median, NODE_FLAGS_OPTION, REPO, rssMiB, untilIdle, wrk, type BodyName, type Server, type Servers } from './servers.ts';
import { admissionTargets, CONNECTIONS, formatTargets, handWrittenTargets } from './targets.ts';

/** How long after starting the servers their idle memory is read. */
const IDLE_AGE_MS = 15_000;
/** The connections of the one extra comparison on both CPUs (peer at GOMAXPROCS=2, serve --workers 2). */
const MULTICORE_CONNECTIONS = 32;
const PEER = 'controller-runtime';
const HAND = 'hand-written';
const BUSY = 'hand-written after other work';

interface Workload {
  name: string;
  server: 'floor' | 'hand' | 'hand-busy' | 'framework' | 'peer';
  path: string;
  body: BodyName;
}

const ALL_WORKLOADS: Workload[] = [
  { name: 'floor (profile body)', server: 'floor', path: '/', body: 'profile' },
  { name: 'allow-all', server: 'framework', path: '/validate-allow-all', body: 'profile' },
  { name: `allow-all, ${PEER}`, server: 'peer', path: '/validate-allow-all', body: 'profile' },
  { name: `mutate-profile, ${HAND}`, server: 'hand', path: '/mutate-profile', body: 'profile' },
  { name: `mutate-profile, ${BUSY}`, server: 'hand-busy', path: '/mutate-profile', body: 'profile' },
  { name: 'mutate-profile', server: 'framework', path: '/mutate-profile', body: 'profile' },
  { name: `mutate-profile, ${PEER}`, server: 'peer', path: '/mutate-profile', body: 'profile' },
  { name: `validate-profile, ${HAND}`, server: 'hand', path: '/validate-profile', body: 'profile' },
  { name: `validate-profile, ${BUSY}`, server: 'hand-busy', path: '/validate-profile', body: 'profile' },
  { name: 'validate-profile', server: 'framework', path: '/validate-profile', body: 'profile' },
  { name: `validate-profile, ${PEER}`, server: 'peer', path: '/validate-profile', body: 'profile' },
  { name: 'floor (assignment body)', server: 'floor', path: '/', body: 'assignment' },
  { name: 'validate-assignment', server: 'framework', path: '/validate-assignment', body: 'assignment' },
  { name: 'floor (200 KB body)', server: 'floor', path: '/', body: 'large' },
  { name: `mutate-profile (200 KB), ${HAND}`, server: 'hand', path: '/mutate-profile', body: 'large' },
  { name: 'mutate-profile (200 KB)', server: 'framework', path: '/mutate-profile', body: 'large' },
  { name: `mutate-profile (200 KB), ${PEER}`, server: 'peer', path: '/mutate-profile', body: 'large' },
];

/** sigs.k8s.io/controller-runtime as the peer's go.mod requires it. */
function controllerRuntimeVersion(): string {
  return /^\s*sigs\.k8s\.io\/controller-runtime (v\S+)/m.exec(readFileSync(path.join(PEER_SOURCE_DIR, 'go.mod'), 'utf8'))?.[1] ?? 'unknown';
}

/** Fails the run, loudly, unless serve and the peer answered every case alike. */
async function requireEquivalence(report: Report, serve: Server, peer: Server, label: string, printCases: boolean): Promise<EquivalenceResult> {
  const endpoints = [
    { name: 'serve', port: serve.port },
    { name: PEER, port: peer.port },
  ] as const;
  const result = await checkEquivalence(...endpoints);
  if (result.mismatches.length > 0) {
    console.error(formatEquivalence(result, ...endpoints));
    throw new Error(`serve and the ${PEER} peer (${label}) answered ${result.mismatches.length} of ${result.cases} equivalence cases differently; nothing was timed`);
  }
  report.line(`Equivalence (${label}): serve and the ${PEER} peer agree on all ${result.cases} cases.`);
  report.line();
  if (printCases) {
    report.line(formatEquivalence(result, ...endpoints));
    report.line();
  }
  return result;
}

/**
 * Fails the run unless the hand-written server answers the Profile webhooks' equivalence cases as serve does:
 * the same objects patched, allowed or denied with the same code (its denials are worded more briefly).
 */
async function requireAgreementWithHand(report: Report, serve: Server, hand: Server, label = HAND, phrase = `the ${HAND} server`): Promise<void> {
  const endpoints = [
    { name: 'serve', port: serve.port },
    { name: label, port: hand.port },
  ] as const;
  const cases = equivalenceCases().filter((c) => c.path === '/mutate-profile' || c.path === '/validate-profile');
  const result = await checkEquivalence(...endpoints, cases, ['allowed', 'code', 'warnings', 'patched']);
  if (result.mismatches.length > 0) {
    console.error(formatEquivalence(result, ...endpoints));
    throw new Error(`serve and ${phrase} answered ${result.mismatches.length} of ${result.cases} cases differently; nothing was timed`);
  }
  report.line(`Equivalence: serve and ${phrase} patch the same objects and allow or deny with the same codes in all ${result.cases} cases of /mutate-profile and /validate-profile.`);
  report.line();
}

interface Started {
  floor: { small: Server; large: Server };
  hand: { small: Server; large: Server };
  /** Serves only the small body's workloads. */
  'hand-busy': { small: Server; large: Server };
  framework: { small: Server; large: Server };
  peer?: { small: Server; large: Server };
}

/**
 * Small and large bodies go to separate server processes: V8 keeps the heap a 200 KB workload grew,
 * which would otherwise be charged to the small-body workloads that follow it.
 */
async function startAll(servers: Servers, peer: string | undefined): Promise<Started> {
  return {
    floor: { small: await servers.startFloor(), large: await servers.startFloor() },
    hand: { small: await servers.startHandWritten(), large: await servers.startHandWritten() },
    'hand-busy': await forBothBodies(servers.startHandWrittenBusy()),
    framework: { small: await servers.startFramework(), large: await servers.startFramework() },
    peer: peer === undefined ? undefined : { small: await servers.startPeer(peer, 'pinned'), large: await servers.startPeer(peer, 'pinned') },
  };
}

/** One server in both places: only the small body's workloads use it. */
async function forBothBodies(started: Promise<Server>): Promise<{ small: Server; large: Server }> {
  const server = await started;
  return { small: server, large: server };
}

function idleOf(started: Started) {
  return {
    floorMiB: rssMiB(started.floor.small.pid, 'VmRSS'),
    handMiB: rssMiB(started.hand.small.pid, 'VmRSS'),
    handAnonMiB: rssMiB(started.hand.small.pid, 'RssAnon'),
    frameworkAnonMiB: rssMiB(started.framework.small.pid, 'RssAnon'),
    frameworkMiB: rssMiB(started.framework.small.pid, 'VmRSS'),
    ...(started.peer ? { peerMiB: rssMiB(started.peer.small.pid, 'VmRSS') } : {}),
  };
}

function peakOf(started: Started) {
  return {
    floorMiB: rssMiB(started.floor.small.pid, 'VmHWM'),
    handMiB: rssMiB(started.hand.small.pid, 'VmHWM'),
    frameworkMiB: rssMiB(started.framework.small.pid, 'VmHWM'),
    floorLargeBodyMiB: rssMiB(started.floor.large.pid, 'VmHWM'),
    handLargeBodyMiB: rssMiB(started.hand.large.pid, 'VmHWM'),
    frameworkLargeBodyMiB: rssMiB(started.framework.large.pid, 'VmHWM'),
    ...(started.peer ? { peerMiB: rssMiB(started.peer.small.pid, 'VmHWM'), peerLargeBodyMiB: rssMiB(started.peer.large.pid, 'VmHWM') } : {}),
  };
}

export interface HandRatios {
  rps: number;
  rpsRange: [number, number];
  p99: number;
  p99Range: [number, number];
  /** Median CPU µs per request: serve's, the hand-written server's. */
  cpuUsPerRequest: [number, number];
  perCpu: number;
  perCpuRange: [number, number];
}

interface Load {
  readonly rounds: number;
  readonly duration: number;
  readonly connections: readonly number[];
}

/** Every cell, round after round; the medians per workload and connection count, and the ratio to the floor with the same body. */
async function measure(servers: Servers, workloads: readonly Workload[], serverOf: (w: Workload) => Server, { rounds, duration, connections }: Load) {
  const serverPids = workloads.map((w) => serverOf(w).pid);
  const samples = new Map<string, WrkResult[]>();
  const cpuPerRequest = new Map<string, number[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const conns of connections) {
      for (const w of workloads) {
        process.stderr.write(`round ${round}/${rounds} c=${conns} ${w.name}\n`);
        const key = `${w.name}@${conns}`;
        const ticks = cpuTicks([serverOf(w).pid]);
        const result = wrk(serverOf(w).port, w.path, servers.bodies[w.body], conns, duration);
        // CPU time per request: what a shared, busy machine changes least (wrk's req/s follows whatever CPU the server got).
        cpuPerRequest.set(key, [...(cpuPerRequest.get(key) ?? []), ((cpuTicks([serverOf(w).pid]) - ticks) * 10_000) / (result.rps * duration)]);
        samples.set(key, [...(samples.get(key) ?? []), result]);
        await untilIdle(serverPids);
      }
    }
  }
  const floorFor = (w: Workload) => workloads.find((f) => f.server === 'floor' && f.body === w.body)!;
  const referenceFor = (w: Workload, server: 'hand' | 'hand-busy') =>
    w.server === 'framework' ? workloads.find((h) => h.server === server && h.path === w.path && h.body === w.body) : undefined;
  const ratiosTo = (w: Workload, conns: number, server: 'hand' | 'hand-busy') => {
    const key = `${referenceFor(w, server)?.name}@${conns}`;
    return roundRatios(samples.get(`${w.name}@${conns}`)!, samples.get(key), cpuPerRequest.get(`${w.name}@${conns}`)!, cpuPerRequest.get(key));
  };
  return connections.flatMap((conns) =>
    workloads.map((w) => {
      const runs = samples.get(`${w.name}@${conns}`)!;
      const floorRuns = samples.get(`${floorFor(w).name}@${conns}`)!;
      return {
        workload: w.name,
        server: w.server,
        connections: conns,
        rps: median(runs.map((r) => r.rps)),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        p999Ms: median(runs.map((r) => r.p999Ms)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
        ratioToFloor: w.server === 'floor' ? 1 : median(runs.map((r, i) => r.rps / floorRuns[i]!.rps)),
        toHand: ratiosTo(w, conns, 'hand'),
        toBusy: ratiosTo(w, conns, 'hand-busy'),
      };
    }),
  );
}

/** Per round, req/s and p99 over the hand-written server's in the same round: medians and ranges. */
function roundRatios(runs: readonly WrkResult[], handRuns: readonly WrkResult[] | undefined, cpu: readonly number[], handCpu: readonly number[] | undefined): HandRatios | undefined {
  if (!handRuns || !handCpu) return undefined;
  const rps = runs.map((r, i) => r.rps / handRuns[i]!.rps);
  const p99 = runs.map((r, i) => r.p99Ms / handRuns[i]!.p99Ms);
  // Requests per CPU-second over the hand-written server's: the req/s ratio the two would have on a CPU of their own.
  const perCpu = cpu.map((us, i) => handCpu[i]! / us);
  return {
    rps: median(rps),
    rpsRange: [Math.min(...rps), Math.max(...rps)],
    p99: median(p99),
    p99Range: [Math.min(...p99), Math.max(...p99)],
    cpuUsPerRequest: [median(cpu), median(handCpu)],
    perCpu: median(perCpu),
    perCpuRange: [Math.min(...perCpu), Math.max(...perCpu)],
  };
}

type MeasuredRows = Awaited<ReturnType<typeof measure>>;

/** serve's rows against one reference server: req/s, p99 and CPU per request, medians of the per-round ratios with their ranges. */
function ratioTable(report: Report, rows: MeasuredRows, reference: string, ratiosOf: (row: MeasuredRows[number]) => HandRatios | undefined): void {
  const range = ([low, high]: readonly [number, number]) => `${low.toFixed(2)}–${high.toFixed(2)}`;
  report.table(
    ['workload', 'conns', 'req/s', `× ${reference}`, 'range', 'p99 ms', `p99 × ${reference}`, 'range', `CPU µs/request (${reference})`, `req per CPU-s × ${reference}`, 'range'],
    rows.flatMap((r) => {
      const ratios = ratiosOf(r);
      if (!ratios) return [];
      const [own, theirs] = ratios.cpuUsPerRequest;
      return [
        [
          r.workload,
          r.connections,
          r.rps.toFixed(0),
          ratios.rps.toFixed(2),
          range(ratios.rpsRange),
          r.p99Ms.toFixed(2),
          ratios.p99.toFixed(2),
          range(ratios.p99Range),
          `${own.toFixed(0)} (${theirs.toFixed(0)})`,
          ratios.perCpu.toFixed(2),
          range(ratios.perCpuRange),
        ],
      ];
    }),
  );
  report.line();
}

function reportHandWritten(report: Report, rows: MeasuredRows, idle: ReturnType<typeof idleOf>, peak: ReturnType<typeof peakOf>): void {
  report.line(
    `## Against the same work written by hand

${HAND}-server.ts: the sample's Profile defaulter and validator on bare node:https. ` + 'Ratios are medians of the per-round ratios, with their range over the rounds.',
  );
  report.line();
  ratioTable(report, rows, HAND, (row) => row.toHand);
  report.line(
    "CPU per request: the server process's user and system time over the requests wrk counted. On a shared machine it varies far less than req/s, which follows the CPU the server was given.",
  );
  report.line();
  report.line(
    `RSS (MiB): ${HAND} idle ${idle.handMiB.toFixed(1)} (anonymous ${idle.handAnonMiB.toFixed(1)}), peak ${peak.handMiB.toFixed(1)} (200 KB body: ${peak.handLargeBodyMiB.toFixed(1)}); ` +
      `shaper-gen serve idle ${idle.frameworkMiB.toFixed(1)} (anonymous ${idle.frameworkAnonMiB.toFixed(1)}), peak ${peak.frameworkMiB.toFixed(1)} (200 KB body: ${peak.frameworkLargeBodyMiB.toFixed(1)}). ` +
      "The rest of each idle figure is the node binary's code paged in: more of it once V8's optimising compilers have run, which the bundled runtime keeps from happening at start-up (docs/adr/0014-the-package-ships-a-bundle.md).",
  );
  report.line();
  report.line(
    `### Against the same code after other work

The ${HAND} server's code after the work a deployable server's process also does (hand-written-busy-server.ts: a plain-HTTP listener answering probes, streams, event emitters, nextTick), as serve answers the kubelet's probes and Prometheus beside the webhook port. ` +
      "Node's own stream, event and HTTP code is shared by all of it, and runs slower for the webhook port once it has seen other callers. For information: issue 30's targets stay against the clean server above.",
  );
  report.line();
  ratioTable(report, rows, BUSY, (row) => row.toBusy);
}

/**
 * The peer once more, at GOMAXPROCS=2 and not pinned (both CPUs, wrk still on CPU 1), beside serve as
 * measured above (one process on CPU 0) and `serve --workers 2` on both CPUs.
 */
async function multicoreComparison(report: Report, servers: Servers, binary: string, floor: Server, serve: Server, { rounds, duration }: Load) {
  const peer = await servers.startPeer(binary, 'both-cpus');
  const serveWorkers = await servers.startFramework([], 2);
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
  for (const cell of cells) wrk(cell.port, cell.path, servers.bodies.profile, 8, 1);
  await untilIdle(serverPids);
  const runs = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const cell of cells) {
      process.stderr.write(`GOMAXPROCS=2 comparison, round ${round}/${rounds} ${cell.name}\n`);
      runs.set(cell.name, [...(runs.get(cell.name) ?? []), wrk(cell.port, cell.path, servers.bodies.profile, MULTICORE_CONNECTIONS, duration)]);
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
  report.line(
    `## Both CPUs\n\n${PEER} at GOMAXPROCS=2 and \`serve --workers 2\` on both CPUs (wrk still on CPU 1), beside serve as a single process on CPU 0: ` +
      `${MULTICORE_CONNECTIONS} connections, profile body, ${rounds} rounds × ${duration} s, medians.`,
  );
  report.line();
  report.table(
    ['workload', 'req/s', '× floor', 'p99 ms', 'errors'],
    rows.map((row) => [row.workload, row.rps.toFixed(0), row.ratioToFloor.toFixed(2), row.p99Ms.toFixed(2), row.errors]),
  );
  report.line();
  report.line(`Peak RSS of the GOMAXPROCS=2 peer: ${peakMiB.toFixed(1)} MiB`);
  report.line();
  return { rows, peakMiB };
}

/** serve's req/s, requests per CPU-second and p99 over the busy hand-written server's, for each workload it serves, at the targets' connections. */
function busySummary(rows: MeasuredRows): string {
  const summaries = rows.flatMap((row) => {
    const busy = row.toBusy;
    if (!busy || row.connections !== CONNECTIONS) return [];
    return [`${row.workload} ${busy.rps.toFixed(2)}× req/s, ${busy.perCpu.toFixed(2)}× per CPU-second, p99 ${busy.p99.toFixed(2)}×`];
  });
  return summaries.length > 0 ? summaries.join('; ') : `not measured (needs --connections with ${CONNECTIONS})`;
}

function reportMemory(report: Report, idle: ReturnType<typeof idleOf>, idleAfterWarmup: ReturnType<typeof idleOf>, peak: ReturnType<typeof peakOf>): void {
  const peerMiB = (value: number | undefined) => (value === undefined ? '' : `, ${PEER} ${value.toFixed(1)}`);
  report.line(
    `RSS (MiB) idle: floor ${idle.floorMiB.toFixed(1)}, shaper-gen serve ${idle.frameworkMiB.toFixed(1)} (${idleAfterWarmup.frameworkMiB.toFixed(1)} after warm-up)` +
      `${peerMiB(idle.peerMiB)}${idleAfterWarmup.peerMiB === undefined ? '' : ` (${idleAfterWarmup.peerMiB.toFixed(1)} after warm-up)`}.`,
  );
  report.line();
  report.line(
    `Peak RSS (MiB) over the whole run, the instances serving 1-2 KB bodies: floor ${peak.floorMiB.toFixed(1)}, shaper-gen serve ${peak.frameworkMiB.toFixed(1)}${peerMiB(peak.peerMiB)}; ` +
      `the instances serving the 200 KB body: floor ${peak.floorLargeBodyMiB.toFixed(1)}, shaper-gen serve ${peak.frameworkLargeBodyMiB.toFixed(1)}${peerMiB(peak.peerLargeBodyMiB)}.`,
  );
  report.line();
}

export default defineBenchmark({
  options: {
    rounds: { kind: 'number', default: 3, description: 'interleaved rounds; each figure is the median over them' },
    duration: { kind: 'number', default: 3, description: 'seconds of wrk per cell' },
    connections: { kind: 'numbers', default: [1, 8, 32, 128], description: 'wrk connection counts (the targets are read at 32)' },
    'no-peer': { kind: 'flag', description: 'leave the controller-runtime peer out (also without Go and no cached build)' },
    ...NODE_FLAGS_OPTION,
  },
  prepare(options) {
    // The first build of the peer takes minutes: not part of the time limit.
    if (!options['no-peer']) peerBinary();
  },
  async main(options, report) {
    const load: Load = { rounds: options.rounds, duration: options.duration, connections: options.connections };
    const binary: PeerBinary = options['no-peer'] ? { unavailable: 'left out (--no-peer)' } : peerBinary();
    if (binary.path === undefined) process.stderr.write(`the ${PEER} peer: ${binary.unavailable}; running without it\n`);
    const workloads = ALL_WORKLOADS.filter((w) => w.server !== 'peer' || binary.path !== undefined);
    const servers = createServers(options['node-flags']);
    const started = await startAll(servers, binary.path);
    const serverOf = (w: Workload) => started[w.server]![w.body === 'large' ? 'large' : 'small'];
    // Idle as a pod sits between requests: V8 shrinks a new process's heap over its first seconds, so every
    // server is measured at the same age rather than the moment it answers.
    await new Promise((resolve) => setTimeout(resolve, IDLE_AGE_MS));
    const idle = idleOf(started);

    const peerNote = started.peer ? `; ${PEER} ${controllerRuntimeVersion()} peer at GOMAXPROCS=1` : '';
    report.line(
      `${load.rounds} interleaved rounds × ${load.duration} s per cell, medians; servers on CPU 0, wrk on CPU 1` +
        `${servers.nodeFlags.length ? `; node flags \`${servers.nodeFlags.join(' ')}\`` : ''}${peerNote}.`,
    );
    report.line();
    let equivalence: EquivalenceResult | undefined;
    if (started.peer) {
      equivalence = await requireEquivalence(report, started.framework.small, started.peer.small, 'instances for 1-2 KB bodies', true);
      await requireEquivalence(report, started.framework.large, started.peer.large, 'instances for the 200 KB body', false);
    }

    await requireAgreementWithHand(report, started.framework.small, started.hand.small);
    await requireAgreementWithHand(report, started.framework.small, started['hand-busy'].small, BUSY, `the ${HAND} server after other work`);

    process.stderr.write('warm-up\n');
    for (const w of workloads) wrk(serverOf(w).port, w.path, servers.bodies[w.body], 8, 1);
    await untilIdle(workloads.map((w) => serverOf(w).pid));
    const idleAfterWarmup = idleOf(started);
    const rows = await measure(servers, workloads, serverOf, load);
    const peak = peakOf(started);

    report.line('## One CPU');
    report.line();
    report.table(
      ['workload', 'conns', 'req/s', '× floor', 'p50 ms', 'p99 ms', 'p99.9 ms', 'errors'],
      rows.map((r) => [r.workload, r.connections, r.rps.toFixed(0), r.ratioToFloor.toFixed(2), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), r.p999Ms.toFixed(2), r.errors]),
    );
    report.line();
    reportMemory(report, idle, idleAfterWarmup, peak);
    reportHandWritten(report, rows, idle, peak);

    const multicore = binary.path === undefined ? undefined : await multicoreComparison(report, servers, binary.path, started.floor.small, started.framework.small, load);
    const targets = admissionTargets(rows, { idle, peak }, multicore);
    report.line(`## Targets\n\nIssue 11's targets: throughput and p99 at 32 connections; ratios are medians of per-round ratios.\n\n${formatTargets(targets)}`);
    report.line();
    report.line(`Issue 30's targets, against the ${HAND} server, at 32 connections:\n\n${formatTargets(handWrittenTargets(rows, { idle, peak }))}`);
    report.line();
    report.line(`For information, the same ratios against the ${HAND} server after other work (above), at ${CONNECTIONS} connections: ${busySummary(rows)}.`);

    const peer = started.peer && {
      controllerRuntime: controllerRuntimeVersion(),
      go: (spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', timeout: 30_000 }).stdout as string | null)?.trim() || undefined,
      binary: binary.path,
      builtInMs: 'builtInMs' in binary ? binary.builtInMs : undefined,
      equivalence: equivalence && { cases: equivalence.cases, mismatches: equivalence.mismatches.length, rows: equivalence.rows },
      multicore,
    };
    mkdirSync(path.join(REPO, 'bench/results'), { recursive: true });
    writeFileSync(
      path.join(REPO, 'bench/results/admission.json'),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, nodeFlags: servers.nodeFlags, rounds: load.rounds, durationSeconds: load.duration, rows, rss: { idle, idleAfterWarmup, peak }, peer, targets }, null, 2)}\n`,
    );
  },
});
