/**
 * cel-spec's conformance tests through the CEL engine (node bench/run.ts
 * cel-engine-conformance): generator/cel-engine's TestConformance, compiled to
 * WebAssembly and run in Node by Go's go_js_wasm_exec, evaluates every simple
 * test of the cel-spec data its go.mod pins (fetched by
 * scripts/fetch-cel-spec.sh) in the engine's own environment for a validating
 * policy's expressions, per Kubernetes compatibility version. Prints, per test
 * file: passed (of which the API server refuses the expression before
 * evaluating it where cel-spec expects an evaluation error), failed, not
 * enabled; the reasons tests are not enabled; every failure. Writes every
 * outcome to bench/results/cel-engine-conformance.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';

const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const engineDir = path.join(repoRoot, 'generator/cel-engine');

type Status = 'pass' | 'error earlier' | 'fail' | 'not enabled';

interface Outcome {
  readonly file: string;
  readonly section: string;
  readonly name: string;
  readonly expr: string;
  readonly status: Status;
  readonly reason?: string;
  readonly detail?: string;
  /** For a failure: the difference between cel-go as the API server runs it and cel-spec. */
  readonly finding?: string;
}

type Tally = Record<Status, number>;
const emptyTally = (): Tally => ({ pass: 0, 'error earlier': 0, fail: 0, 'not enabled': 0 });

function fetchSpec(): string {
  return execFileSync('bash', [path.join(repoRoot, 'scripts/fetch-cel-spec.sh')], { encoding: 'utf8' }).trim();
}

/** Runs TestConformance as WebAssembly for one compatibility version ('' is the engine's default) and reads its outcomes. */
function runEngine(specDir: string, version: string): Outcome[] {
  const out = path.join(os.tmpdir(), `cel-engine-conformance-${process.pid}-${version || 'default'}.json`);
  const goroot = execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
  // The flags the engine's own wasm build uses (module copies without etcd storage, -checklinkname=0).
  const goFlags = execFileSync('bash', [path.join(repoRoot, 'scripts/build-cel-engine.sh'), '--go-flags'], { encoding: 'utf8' })
    .trim()
    .split('\n');
  const run = spawnSync('go', ['test', ...goFlags, '-vet=off', '-exec', path.join(goroot, 'lib/wasm/go_js_wasm_exec'), '-run', '^TestConformance$', '-count=1', '.'], {
    cwd: engineDir,
    encoding: 'utf8',
    env: { ...process.env, GOOS: 'js', GOARCH: 'wasm', SHAPER_CEL_SPEC_DIR: specDir, SHAPER_CEL_VERSION: version, SHAPER_CEL_CONFORMANCE_OUT: out },
  });
  if (run.status !== 0) throw new Error(`bench: go test (js/wasm) failed:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(readFileSync(out, 'utf8')) as Outcome[];
}

function cell(tally: Tally): string {
  const passed = tally.pass + tally['error earlier'];
  return `${passed}${tally['error earlier'] > 0 ? ` (${tally['error earlier']})` : ''} / ${tally.fail} / ${tally['not enabled']}`;
}

function rate(tally: Tally): string {
  const passed = tally.pass + tally['error earlier'];
  const ran = passed + tally.fail;
  return ran === 0 ? '–' : `${((100 * passed) / ran).toFixed(1)}%`;
}

function tallyByFile(outcomes: readonly Outcome[]): Map<string, Tally> {
  const byFile = new Map<string, Tally>();
  for (const outcome of outcomes) {
    const tally = byFile.get(outcome.file) ?? emptyTally();
    tally[outcome.status]++;
    byFile.set(outcome.file, tally);
  }
  return byFile;
}

function total(tallies: Iterable<Tally>): Tally {
  const sum = emptyTally();
  for (const tally of tallies) for (const status of Object.keys(sum) as Status[]) sum[status] += tally[status];
  return sum;
}

function writeReasons(report: Report, outcomes: readonly Outcome[], status: Status, title: string): void {
  const counts = new Map<string, Map<string, number>>();
  for (const outcome of outcomes.filter((item) => item.status === status)) {
    const byFile = counts.get(outcome.reason ?? '') ?? new Map<string, number>();
    byFile.set(outcome.file, (byFile.get(outcome.file) ?? 0) + 1);
    counts.set(outcome.reason ?? '', byFile);
  }
  if (counts.size === 0) return;
  report.line();
  report.line(`## ${title}`);
  report.line();
  report.table(
    ['reason', 'tests', 'files'],
    [...counts].map(([reason, byFile]) => [reason.replace(/\|/g, '\\|'), [...byFile.values()].reduce((a, b) => a + b, 0), [...byFile].map(([file, count]) => `${file} ${count}`).join(', ')]),
  );
}

export default defineBenchmark({
  options: {
    versions: { kind: 'string', default: ',1.37', description: "comma-separated Kubernetes compatibility versions ('' is the engine's default, the API server's)" },
    files: { kind: 'string', description: 'comma-separated test files to report (basic,lists,…); all by default' },
  },
  prepare() {
    fetchSpec();
  },
  async main(options, report) {
    const specDir = fetchSpec();
    const wanted = options.files?.split(',').filter(Boolean) ?? [];
    const versions = options.versions.split(',');
    const results = new Map<string, Outcome[]>();
    const seconds = new Map<string, number>();
    for (const version of versions) {
      const started = performance.now();
      results.set(
        version,
        runEngine(specDir, version).filter((outcome) => wanted.length === 0 || wanted.includes(outcome.file)),
      );
      seconds.set(version, (performance.now() - started) / 1000);
    }
    const label = (version: string) => (version === '' ? 'engine default' : version);
    const engineVersion = (dependency: string) => execFileSync('go', ['list', '-m', '-f', '{{.Version}}', dependency], { cwd: engineDir, encoding: 'utf8' }).trim();
    const first = results.get(versions[0]!)!;
    const files = [...new Set(first.map((outcome) => outcome.file))].sort();

    report.line(
      `cel-spec conformance data of cel.dev/expr ${engineVersion('cel.dev/expr')} (${specDir}): ${first.length} tests in ${files.length} files, through the CEL engine ` +
        `(k8s.io/apiserver ${engineVersion('k8s.io/apiserver')}, cel-go ${engineVersion('github.com/google/cel-go')}) compiled to WebAssembly (GOOS=js GOARCH=wasm go test, Node ${process.version}).`,
    );
    report.line();
    for (const version of versions) report.line(`- ${label(version)}: ${seconds.get(version)!.toFixed(1)} s (build and run)`);
    report.line();
    report.line(
      "Each test is run as cel-spec's procedure says, in the environment the engine compiles a validating policy's expressions in (the API server's base environment for the compatibility version, its libraries and cel-go extensions), " +
        'programs built as the admission plugins build them. Cells: passed (of which refused before evaluation where cel-spec expects an evaluation error) / failed / not enabled. ' +
        "Not enabled: the test needs what the API server's environment does not have (protobuf test messages and enums, extensions it does not load, unknowns, mixed-type literals it refuses).",
    );
    report.line();
    report.line('## Per test file');
    report.line();
    const tallies = new Map(versions.map((version) => [version, tallyByFile(results.get(version)!)]));
    report.table(
      ['file', 'tests', ...versions.flatMap((version) => [label(version), 'pass rate'])],
      [
        ...files.map((file) => {
          const tests = first.filter((outcome) => outcome.file === file).length;
          return [file, tests, ...versions.flatMap((version) => [cell(tallies.get(version)!.get(file)!), rate(tallies.get(version)!.get(file)!)])];
        }),
        ['**all**', first.length, ...versions.flatMap((version) => [cell(total(tallies.get(version)!.values())), rate(total(tallies.get(version)!.values()))])],
      ],
    );
    for (const version of versions) {
      const outcomes = results.get(version)!;
      report.line();
      report.line(`# ${label(version)}`);
      writeReasons(report, outcomes, 'not enabled', 'Not enabled');
      writeReasons(report, outcomes, 'error earlier', 'Refused before evaluation where cel-spec expects an evaluation error');
      const failures = outcomes.filter((outcome) => outcome.status === 'fail');
      if (failures.length === 0) continue;
      writeReasons(
        report,
        failures.map((failure) => ({ ...failure, reason: failure.finding || 'unexplained' })),
        'fail',
        'Failures: what the API server does otherwise than cel-spec',
      );
      report.line();
      report.line('## Failures');
      report.line();
      for (const failure of failures) {
        const detail = (failure.detail ?? '').replace(/\s+/g, ' ').slice(0, 200);
        report.line(`- \`${failure.file}/${failure.section}/${failure.name}\`: \`${failure.expr.replace(/\s+/g, ' ').slice(0, 120)}\` — ${failure.reason}: ${detail}`.replace(/\|/g, '\\|'));
      }
    }
    mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    writeFileSync(path.join(repoRoot, 'bench/results/cel-engine-conformance.json'), `${JSON.stringify(Object.fromEntries(results), null, 1)}\n`);
  },
});
