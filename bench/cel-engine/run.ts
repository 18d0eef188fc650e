/**
 * The CEL engine (node bench/run.ts cel-engine): the API server's own CEL
 * code compiled to WebAssembly, as @shaper-gen/generator loads it, beside
 * the cel-js path it replaces for local evaluation. Prints the .wasm's size
 * (raw, gzip, brotli at quality 5); cold start to the first compile and the process's RSS
 * before and after, each in a fresh Node process; compile and evaluation per
 * call (median and p99 over a bounded loop) for typical policy expressions,
 * with cel-js on the same expressions.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';

const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const generatorDist = path.join(repoRoot, 'generator/dist');
const engineModule = path.join(generatorDist, 'cel/engine/index.js');

/** Typical policy expressions (a ConfigMap's data and labels), and library calls cel-js has no implementation of. */
const PORTABLE = [
  "object.metadata.name.startsWith('app-') && size(object.data) <= 10",
  "object.data.all(k, k.matches('^[a-z.]+$'))",
  "has(object.metadata.labels) && 'team' in object.metadata.labels && object.metadata.labels.team != ''",
  "object.data.exists(k, object.data[k].contains('secret')) == false",
];
const LIBRARIES = ["quantity(object.data.limit).isLessThan(quantity('1Gi'))", "cidr('10.0.0.0/8').containsIP(ip(object.data.address))", "url(object.data.endpoint).getScheme() == 'https'"];

const OBJECT = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'app-settings', namespace: 'team-a', labels: { team: 'a', tier: 'web' } },
  data: { limit: '512Mi', address: '10.1.2.3', endpoint: 'https://example.com/x', 'mode.fast': 'yes' },
};
const REQUEST = {
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  name: 'app-settings',
  namespace: 'team-a',
  userInfo: { username: 'alice', groups: ['system:authenticated'] },
};

interface Stats {
  readonly median: number;
  readonly p99: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p99: at(0.99) };
}

function timed(runs: number, body: (index: number) => void): Stats {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    body(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return stats(samples);
}

const micros = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} ms` : `${value.toFixed(1)} µs`);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A fresh process: RSS before loading, time from loading to the first compile answered, RSS after. */
const COLD_START = `
const before = process.memoryUsage().rss;
const start = performance.now();
const engine = await import(${JSON.stringify(engineModule)});
const answer = engine.compile({ policy: { hasParams: false }, kind: 'validation', expression: "object.metadata.name != ''" });
if (!answer.outputType) throw new Error(JSON.stringify(answer));
const firstCompile = performance.now() - start;
const evaluated = engine.evaluate({ policy: { hasParams: false }, kind: 'validation', expressions: ["object.metadata.name != ''"], input: { request: ${JSON.stringify(REQUEST)}, object: ${JSON.stringify(OBJECT)} }, budget: '10000000' });
if (evaluated.results[0].value !== true) throw new Error(JSON.stringify(evaluated));
const firstEvaluation = performance.now() - start;
console.log(JSON.stringify({ before, after: process.memoryUsage().rss, firstCompile, firstEvaluation }));
`;

async function measure(options: { runs: number; cold: number }, report: Report): Promise<void> {
  const { engineVersion, compile, evaluate, estimateCost } = (await import(engineModule)) as typeof import('../../generator/src/cel/engine/index.ts');
  const { admissionEnvironment } = (await import(path.join(generatorDist, 'cel/environment.js'))) as typeof import('../../generator/src/cel/environment.ts');
  const { celValue } = { celValue: (value: unknown): unknown => JSON.parse(JSON.stringify(value), (_, v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v)) };

  const wasm = readFileSync(path.join(generatorDist, 'cel-engine/cel-engine.wasm'));
  const versions = engineVersion();
  report.line(`Engine: ${versions['k8s.io/apiserver']} k8s.io/apiserver, cel-go ${versions['github.com/google/cel-go']}, ${versions.go}, GOOS=js GOARCH=wasm; Node ${process.version}.`);
  report.line();
  report.table(
    ['.wasm', 'size'],
    [
      ['raw', mib(wasm.length)],
      ['gzip', mib(gzipSync(wasm).length)],
      // Quality 5: brotli's default (11) takes minutes on 100 MB.
      ['brotli -5', mib(brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }).length)],
    ],
  );

  const cold = Array.from(
    { length: options.cold },
    () =>
      JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', COLD_START], { encoding: 'utf8' })) as {
        before: number;
        after: number;
        firstCompile: number;
        firstEvaluation: number;
      },
  );
  const coldStats = (pick: (run: (typeof cold)[number]) => number) => stats(cold.map(pick)).median;
  report.line();
  report.line(`Cold start, median of ${options.cold} fresh processes:`);
  report.table(
    ['', 'median'],
    [
      ['loading to first compile answered', `${coldStats((run) => run.firstCompile).toFixed(0)} ms`],
      ['loading to first evaluation answered', `${coldStats((run) => run.firstEvaluation).toFixed(0)} ms`],
      ['RSS before loading', mib(coldStats((run) => run.before))],
      ['RSS after the first evaluation', mib(coldStats((run) => run.after))],
    ],
  );

  const expressions = [...PORTABLE, ...LIBRARIES];
  // Compiling is never cached by the engine; the suffix keeps cel-js' parse cache out too.
  const variant = (expression: string, index: number) => `(${expression}) || ${index} < 0`;
  const engineCompile = timed(options.runs, (i) => void compile({ policy: { hasParams: false }, kind: 'validation', expression: variant(expressions[i % expressions.length]!, i) }));
  const engineCost = timed(options.runs, (i) => void estimateCost({ policy: { hasParams: false }, kind: 'validation', expression: variant(expressions[i % expressions.length]!, i) }));
  const input = { request: REQUEST, object: OBJECT };
  const engineEval = (list: readonly string[]) =>
    timed(options.runs, (i) => {
      const answer = evaluate({ policy: { hasParams: false }, kind: 'validation', expressions: [list[i % list.length]!], input, budget: '10000000' });
      if (answer.results?.[0]?.error) throw new Error(answer.results[0].error);
    });
  const portableEval = engineEval(PORTABLE);
  const libraryEval = engineEval(LIBRARIES);

  const env = admissionEnvironment({ mode: 'evaluate', declare: (e) => void e.registerVariable('variables', 'map<string, dyn>') });
  const celJsCompile = timed(options.runs, (i) => void env.parse(variant(PORTABLE[i % PORTABLE.length]!, i)).check());
  const activation = { object: celValue(OBJECT), oldObject: null, request: celValue(REQUEST), namespaceObject: null, variables: {} };
  const celJsEval = timed(options.runs, (i) => void env.evaluate(PORTABLE[i % PORTABLE.length]!, activation));

  report.line();
  report.line(`Per call, ${options.runs} calls each, expressions cycled (${PORTABLE.length} portable, ${LIBRARIES.length} with Kubernetes libraries):`);
  const row = (name: string, value: Stats): string[] => [name, micros(value.median), micros(value.p99)];
  report.table(
    ['call', 'median', 'p99'],
    [
      row('engine: compile (type-check, program, static cost)', engineCompile),
      row('engine: estimateCost alone', engineCost),
      row('engine: evaluate, portable expressions (object sent as JSON)', portableEval),
      row('engine: evaluate, library expressions', libraryEval),
      row('cel-js: parse and check, portable expressions', celJsCompile),
      row('cel-js: evaluate (parse cached), portable expressions', celJsEval),
    ],
  );
  report.line();
  report.line(`RSS of this process at the end: ${mib(process.memoryUsage().rss)}.`);
}

export default defineBenchmark({
  options: {
    runs: { kind: 'number', default: 2000, description: 'calls per measured loop' },
    cold: { kind: 'number', default: 5, description: 'fresh processes for the cold start' },
  },
  main: (options, report) => measure(options, report),
});
