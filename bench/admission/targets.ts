/**
 * The admission targets of issue 11, each with the figure this run measured
 * and a pass/miss mark: throughput and p99 against the floor at 32
 * connections, memory against the floor, and `serve --workers 2` against the
 * controller-runtime peer at GOMAXPROCS=2; and issue 30's, against the same
 * work written by hand (hand-written-server.ts).
 */
export interface MeasuredRow {
  workload: string;
  server: string;
  connections: number;
  rps: number;
  p99Ms: number;
  ratioToFloor: number;
  /** Medians of the per-round ratios to the hand-written server doing the same work. */
  toHand?: { rps: number; p99: number; perCpu: number };
}

export interface MeasuredMemory {
  idle: { floorMiB: number; handMiB: number; frameworkMiB: number };
  peak: { floorMiB: number; handMiB: number; frameworkMiB: number; floorLargeBodyMiB: number; frameworkLargeBodyMiB: number };
}

export interface Target {
  target: string;
  result: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

/** The connection count the targets are read at. */
export const CONNECTIONS = 32;
const THROUGHPUT: [workload: string, floor: string, atLeast: number][] = [
  ['allow-all', 'floor (profile body)', 0.95],
  ['validate-profile', 'floor (profile body)', 0.9],
  ['validate-assignment', 'floor (assignment body)', 0.9],
  ['mutate-profile', 'floor (profile body)', 0.8],
  ['mutate-profile (200 KB)', 'floor (200 KB body)', 0.8],
];
const P99_AT_MOST = 1.25;
const MEMORY_OVER_FLOOR_MIB = { idle: 10, peak: 20, peakLargeBody: 60 };

export function admissionTargets(rows: readonly MeasuredRow[], memory: MeasuredMemory, multicore?: { rows: readonly { workload: string; rps: number }[] }): Target[] {
  const at = (workload: string) => rows.find((row) => row.workload === workload && row.connections === CONNECTIONS);
  const targets: Target[] = [];
  for (const [workload, , atLeast] of THROUGHPUT) {
    const row = at(workload);
    targets.push({ target: `${workload}: req/s ≥ ${atLeast}× the floor`, result: row ? `${row.ratioToFloor.toFixed(2)}×` : notMeasured, met: row && row.ratioToFloor >= atLeast });
  }
  for (const [workload, floorName] of THROUGHPUT) {
    const row = at(workload);
    const floor = at(floorName);
    const ratio = row && floor ? row.p99Ms / floor.p99Ms : undefined;
    targets.push({
      target: `${workload}: p99 ≤ ${P99_AT_MOST}× the floor's`,
      result: ratio === undefined ? notMeasured : `${row!.p99Ms.toFixed(1)} ms vs ${floor!.p99Ms.toFixed(1)} ms (${ratio.toFixed(2)}×)`,
      met: ratio === undefined ? undefined : ratio <= P99_AT_MOST,
    });
  }
  const { idle, peak } = memory;
  const overFloor = (target: string, own: number, floor: number, limit: number): Target => ({
    target: `${target} ≤ the floor's + ${limit} MiB`,
    result: `${own.toFixed(1)} vs ${floor.toFixed(1)} MiB (+${(own - floor).toFixed(1)})`,
    met: own <= floor + limit,
  });
  targets.push(
    overFloor('idle RSS', idle.frameworkMiB, idle.floorMiB, MEMORY_OVER_FLOOR_MIB.idle),
    overFloor('peak RSS, 1–2 KB bodies', peak.frameworkMiB, peak.floorMiB, MEMORY_OVER_FLOOR_MIB.peak),
    overFloor('peak RSS, 200 KB body', peak.frameworkLargeBodyMiB, peak.floorLargeBodyMiB, MEMORY_OVER_FLOOR_MIB.peakLargeBody),
  );
  for (const workload of ['allow-all', 'mutate-profile', 'validate-profile']) {
    const workers = multicore?.rows.find((row) => row.workload === `${workload}, serve --workers 2 unpinned`);
    const peer = multicore?.rows.find((row) => row.workload.startsWith(`${workload}, `) && row.workload.endsWith('GOMAXPROCS=2 unpinned'));
    targets.push({
      target: `${workload}: serve --workers 2 ≥ the peer at GOMAXPROCS=2`,
      result: workers && peer ? `${workers.rps.toFixed(0)} vs ${peer.rps.toFixed(0)} req/s (${(workers.rps / peer.rps).toFixed(2)}×)` : 'not measured (needs the peer)',
      met: workers && peer ? workers.rps >= peer.rps : undefined,
    });
  }
  return targets;
}

const HAND_THROUGHPUT: [workload: string, atLeast: number][] = [
  ['mutate-profile', 0.9],
  ['validate-profile', 0.95],
];
const HAND_P99_AT_MOST: [workload: string, atMost: number][] = [['mutate-profile', 1.3]];
const MEMORY_OVER_HAND_MIB = { idle: 15, peak: 40 };

/** Issue 30's targets: serve against the same work written by hand on bare node:https. */
export function handWrittenTargets(rows: readonly MeasuredRow[], { idle, peak }: MeasuredMemory): Target[] {
  const at = (workload: string) => rows.find((row) => row.workload === workload && row.connections === CONNECTIONS)?.toHand;
  const targets: Target[] = [];
  for (const [workload, atLeast] of HAND_THROUGHPUT) {
    const ratio = at(workload)?.rps;
    targets.push({
      target: `${workload}: req/s ≥ ${atLeast}× hand-written`,
      result: ratio === undefined ? notMeasured : `${ratio.toFixed(2)}×`,
      met: ratio === undefined ? undefined : ratio >= atLeast,
    });
    const perCpu = at(workload)?.perCpu;
    targets.push({
      target: `${workload}: requests per CPU-second ≥ ${atLeast}× hand-written`,
      result: perCpu === undefined ? notMeasured : `${perCpu.toFixed(2)}×`,
      met: perCpu === undefined ? undefined : perCpu >= atLeast,
    });
  }
  for (const [workload, atMost] of HAND_P99_AT_MOST) {
    const ratio = at(workload)?.p99;
    targets.push({
      target: `${workload}: p99 ≤ ${atMost}× hand-written`,
      result: ratio === undefined ? notMeasured : `${ratio.toFixed(2)}×`,
      met: ratio === undefined ? undefined : ratio <= atMost,
    });
  }
  const overHand = (target: string, own: number, hand: number, limit: number): Target => ({
    target: `${target} ≤ hand-written + ${limit} MiB`,
    result: `${own.toFixed(1)} vs ${hand.toFixed(1)} MiB (+${(own - hand).toFixed(1)})`,
    met: own <= hand + limit,
  });
  targets.push(overHand('idle RSS', idle.frameworkMiB, idle.handMiB, MEMORY_OVER_HAND_MIB.idle), overHand('peak RSS, 1–2 KB bodies', peak.frameworkMiB, peak.handMiB, MEMORY_OVER_HAND_MIB.peak));
  return targets;
}

const notMeasured = `not measured (needs --connections with ${CONNECTIONS})`;

export function formatTargets(targets: readonly Target[]): string {
  const mark = (met: boolean | undefined) => (met === undefined ? '–' : met ? '✔ met' : '✘ missed');
  return ['| target | this run | |', '|---|---|---|', ...targets.map((t) => `| ${t.target} | ${t.result} | ${mark(t.met)} |`)].join('\n');
}
