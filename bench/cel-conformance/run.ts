/**
 * CEL conformance (node bench/run.ts cel-conformance): cel-spec's conformance
 * tests, as @bufbuild/cel-spec ships them, run against @marcbachmann/cel-js
 * as the generator configures it (with and without the generator's function
 * libraries) and against @bufbuild/cel (with and without its checker). Per
 * test file and in total: passed, failed, errored, skipped; why tests were
 * skipped; what failed, by category, with examples. Also writes every
 * outcome to bench/results/cel-conformance.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import { parse } from '@bufbuild/cel';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';
import { bufbuildImplementation, loadChecker } from './bufbuild.ts';
import { celJsImplementation, loadGeneratorCel } from './cel-js.ts';
import { type Answer, type ConformanceTest, judge, loadTests, type Outcome, protobufNeed, type Status } from './suite.ts';

const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The test files whose features Kubernetes admission expressions use. */
const KUBERNETES_FILES = ['basic', 'comparisons', 'conversions', 'fields', 'integer_math', 'lists', 'logic', 'macros', 'optionals', 'parse', 'string', 'string_ext', 'timestamps'];
const STATUSES: readonly Status[] = ['pass', 'fail', 'error', 'skip'];

interface Implementation {
  readonly name: string;
  readonly description: string;
  /** It has no protobuf messages: tests that need them are skipped. */
  readonly withoutProtobuf: boolean;
  readonly answer: (item: ConformanceTest) => Answer;
}

type Tally = Record<Status, number>;
const emptyTally = (): Tally => ({ pass: 0, fail: 0, error: 0, skip: 0 });

function packageJson(name: string): { version: string; upstreamCelSpecRef?: string } {
  return JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string; upstreamCelSpecRef?: string };
}
const version = (name: string) => packageJson(name).version;

function cell(tally: Tally): string {
  return `${tally.pass} / ${tally.fail} / ${tally.error} / ${tally.skip}`;
}

function rate(tally: Tally): string {
  const ran = tally.pass + tally.fail + tally.error;
  return ran === 0 ? '–' : `${((100 * tally.pass) / ran).toFixed(1)}%`;
}

function sum(tallies: readonly Tally[]): Tally {
  const total = emptyTally();
  for (const tally of tallies) for (const status of STATUSES) total[status] += tally[status];
  return total;
}

async function implementations(selected: readonly string[]): Promise<Implementation[]> {
  const registry = getTestRegistry();
  const generator = await loadGeneratorCel(repoRoot);
  const checker = await loadChecker();
  const celJs = `@marcbachmann/cel-js ${version('@marcbachmann/cel-js')}`;
  const bufbuild = `@bufbuild/cel ${version('@bufbuild/cel')}`;
  const all: Implementation[] = [
    { name: 'cel-js', description: `${celJs}, the generator's Environment options`, withoutProtobuf: true, answer: celJsImplementation(generator, registry, false) },
    {
      name: 'cel-js+lib',
      description: `${celJs}, the generator's options and its libraries in evaluate mode (shaper-gen/testing)`,
      withoutProtobuf: true,
      answer: celJsImplementation(generator, registry, true),
    },
    {
      name: 'bufbuild',
      description: `${bufbuild}, parse, plan, evaluate: its public API, as its own harness runs the suite (type-checks typed_result tests only)`,
      withoutProtobuf: false,
      answer: bufbuildImplementation(checker, registry, false),
    },
    {
      name: 'bufbuild+checker',
      description: `${bufbuild}, parse, check (its checker, not exported), plan, evaluate: cel-spec's procedure`,
      withoutProtobuf: false,
      answer: bufbuildImplementation(checker, registry, true),
    },
  ];
  const unknown = selected.filter((name) => !all.some((implementation) => implementation.name === name));
  if (unknown.length > 0) throw new Error(`bench: no implementation named ${unknown.join(', ')} (there are ${all.map((implementation) => implementation.name).join(', ')})`);
  return all.filter((implementation) => selected.length === 0 || selected.includes(implementation.name));
}

function parsedOrUndefined(expr: string): Expr | undefined {
  try {
    return parse(expr).expr;
  } catch {
    return undefined;
  }
}

function run(implementation: Implementation, item: ConformanceTest, need: string | undefined): Outcome {
  if (need !== undefined && implementation.withoutProtobuf) return { status: 'skip', category: `needs protobuf: ${need}` };
  try {
    return judge(item, getTestRegistry(), () => implementation.answer(item));
  } catch (error) {
    return { status: 'error', category: 'the harness failed', detail: error instanceof Error ? error.message : String(error) };
  }
}

function categories(outcomes: readonly (Outcome & { path: string })[], statuses: readonly Status[]): [string, (Outcome & { path: string })[]][] {
  const byCategory = new Map<string, (Outcome & { path: string })[]>();
  for (const outcome of outcomes) if (statuses.includes(outcome.status)) byCategory.set(outcome.category, [...(byCategory.get(outcome.category) ?? []), outcome]);
  return [...byCategory].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
}

function writeTables(report: Report, files: readonly string[], names: readonly string[], tallies: Map<string, Map<string, Tally>>): void {
  const totalOf = (name: string, only?: readonly string[]) => sum(files.filter((file) => !only || only.includes(file)).map((file) => tallies.get(name)!.get(file)!));
  report.line('## Totals');
  report.line();
  report.table(
    ['implementation', 'tests', 'passed', 'failed', 'errored', 'skipped', 'pass rate of those run', 'Kubernetes files: passed / failed / errored / skipped', 'pass rate'],
    names.map((name) => {
      const total = totalOf(name);
      const kubernetes = totalOf(name, KUBERNETES_FILES);
      return [name, total.pass + total.fail + total.error + total.skip, total.pass, total.fail, total.error, total.skip, rate(total), cell(kubernetes), rate(kubernetes)];
    }),
  );
  report.line();
  report.line('## Per test file (passed / failed / errored / skipped)');
  report.line();
  report.line(`Files marked * are the ones Kubernetes admission expressions exercise (${KUBERNETES_FILES.join(', ')}).`);
  report.line();
  report.table(
    ['file', 'tests', ...names],
    [
      ...files.map((file) => {
        const first = tallies.get(names[0]!)!.get(file)!;
        return [`${file}${KUBERNETES_FILES.includes(file) ? ' *' : ''}`, first.pass + first.fail + first.error + first.skip, ...names.map((name) => cell(tallies.get(name)!.get(file)!))];
      }),
      ['**Kubernetes files**', '', ...names.map((name) => cell(totalOf(name, KUBERNETES_FILES)))],
      ['**all**', '', ...names.map((name) => cell(totalOf(name)))],
    ],
  );
}

function writeCommon(report: Report, tests: readonly ConformanceTest[], names: readonly string[], outcomes: Map<string, Outcome[]>): void {
  const common = tests.map((_, i) => i).filter((i) => names.every((name) => outcomes.get(name)![i]!.status !== 'skip'));
  const rows = (only?: readonly string[]) => {
    const selected = common.filter((i) => !only || only.includes(tests[i]!.file));
    return [selected.length, ...names.map((name) => `${selected.filter((i) => outcomes.get(name)![i]!.status === 'pass').length}`)];
  };
  report.line();
  report.line('## Like for like: the tests no implementation skipped');
  report.line();
  report.table(
    ['tests', 'count', ...names.map((name) => `${name} passed`)],
    [
      ['all files', ...rows()],
      ['Kubernetes files', ...rows(KUBERNETES_FILES)],
    ],
  );
}

function writeCategories(report: Report, name: string, outcomes: readonly (Outcome & { path: string })[], examples: number): void {
  report.line();
  report.line(`## ${name}`);
  const skipped = categories(outcomes, ['skip']);
  if (skipped.length > 0) {
    report.line();
    report.table(
      ['skipped because', 'tests'],
      skipped.map(([category, list]) => [category, list.length]),
    );
  }
  const failed = categories(outcomes, ['fail', 'error']);
  if (failed.length === 0) return;
  report.line();
  report.table(
    ['failed or errored', 'status', 'tests', 'Kubernetes files'],
    failed.map(([category, list]) => [category, list[0]!.status, list.length, list.filter((outcome) => KUBERNETES_FILES.includes(outcome.path.split('/')[0]!)).length]),
  );
  if (examples === 0) return;
  report.line();
  for (const [category, list] of failed) {
    report.line(`- ${category}:`);
    for (const outcome of list.slice(0, examples)) report.line(`  - \`${outcome.path}\`: ${outcome.detail ?? ''}`.replace(/\|/g, '\\|'));
  }
}

export default defineBenchmark({
  options: {
    files: { kind: 'string', description: 'comma-separated test files to run (basic,lists,…); all by default' },
    implementations: { kind: 'string', description: 'comma-separated: cel-js, cel-js+lib, bufbuild, bufbuild+checker; all by default' },
    examples: { kind: 'number', default: 3, description: 'examples printed per failure category' },
  },
  async main(options, report) {
    const registry = getTestRegistry();
    const wanted = options.files?.split(',').filter(Boolean) ?? [];
    const tests = loadTests().filter((item) => wanted.length === 0 || wanted.includes(item.file));
    if (tests.length === 0) throw new Error(`bench: no conformance tests in ${options.files ?? ''}`);
    const files = [...new Set(tests.map((item) => item.file))];
    const selected = await implementations(options.implementations?.split(',').filter(Boolean) ?? []);
    const needs = tests.map((item) => protobufNeed(item.test, parsedOrUndefined(item.test.expr), registry));

    const outcomes = new Map<string, Outcome[]>();
    const tallies = new Map<string, Map<string, Tally>>();
    const seconds = new Map<string, number>();
    for (const implementation of selected) {
      const started = performance.now();
      const list = tests.map((item, i) => run(implementation, item, needs[i]));
      seconds.set(implementation.name, (performance.now() - started) / 1000);
      outcomes.set(implementation.name, list);
      const byFile = new Map(files.map((file) => [file, emptyTally()]));
      list.forEach((outcome, i) => byFile.get(tests[i]!.file)![outcome.status]++);
      tallies.set(implementation.name, byFile);
    }

    const names = selected.map((implementation) => implementation.name);
    const spec = packageJson('@bufbuild/cel-spec');
    report.line(`cel-spec ${spec.upstreamCelSpecRef ?? ''} conformance data from @bufbuild/cel-spec ${spec.version}: ${tests.length} tests in ${files.length} files.`);
    report.line();
    for (const implementation of selected) report.line(`- \`${implementation.name}\`: ${implementation.description} (${seconds.get(implementation.name)!.toFixed(1)} s)`);
    report.line();
    report.line(
      'A test passes when the value, the evaluation error (any: cel-spec compares no messages) or, for typed_result, the type matches cel-spec. ' +
        'Values are compared by CEL kind: an int must come back as an int (bigint), a uint as a uint, a double as a double, bytes byte for byte, maps without regard to order, ' +
        'durations and timestamps to the nanosecond, messages by protobuf equality; NaN equals NaN. A map in a plain object (cel-js) keeps only the text of its keys. ' +
        'Failed: the library answered otherwise (or its parser or checker refused a test cel-go accepts). Errored: it threw something other than its CEL error, or a result with no CEL meaning. ' +
        'Skipped (cel-js only): the test needs protobuf messages or enums, which cel-js cannot have; no test here expects an unknown result.',
    );
    report.line();
    writeTables(report, files, names, tallies);
    writeCommon(report, tests, names, outcomes);
    for (const name of names)
      writeCategories(
        report,
        name,
        outcomes.get(name)!.map((outcome, i) => ({ ...outcome, path: tests[i]!.path })),
        options.examples,
      );

    mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    const json = tests.map((item, i) => ({ path: item.path, expr: item.test.expr, ...Object.fromEntries(names.map((name) => [name, outcomes.get(name)![i]])) }));
    writeFileSync(path.join(repoRoot, 'bench/results/cel-conformance.json'), `${JSON.stringify(json, null, 1)}\n`);
  },
});
