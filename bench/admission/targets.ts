/**
 * The admission targets of issue 11, each with the figure this run measured
 * and a pass/miss mark: throughput and p99 against the floor at 32
 * connections, memory against the floor, and `serve --workers 2` against the
 * controller-runtime peer at GOMAXPROCS=2.
 */
export interface MeasuredRow {
  workload: string;
  server: string;
  connections: number;
  rps: number;
  p99Ms: number;
  ratioToFloor: number;
}

export interface MeasuredMemory {
  idle: { floorMiB: number; frameworkMiB: number };
  peak: { floorMiB: number; frameworkMiB: number; floorLargeBodyMiB: number; frameworkLargeBodyMiB: number };
}

export interface Target {
  target: string;
  result: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

const CONNECTIONS = 32;
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

const notMeasured = `not measured (needs --connections with ${CONNECTIONS})`;

export function formatTargets(targets: readonly Target[]): string {
  const mark = (met: boolean | undefined) => (met === undefined ? '–' : met ? '✔ met' : '✘ missed');
  return ['| target | this run | |', '|---|---|---|', ...targets.map((t) => `| ${t.target} | ${t.result} | ${mark(t.met)} |`)].join('\n');
}
