/**
 * The benchmarks' one entry point (npm run bench -- …):
 *
 *   node bench/run.ts                       lists the benchmarks
 *   node bench/run.ts <name> [options]      runs one; `<name> --help` lists its options
 *   node bench/run.ts all                   runs every one, each in its own process
 *
 * Runner flags, anywhere on the line: --quick (each benchmark's smallest
 * mode), --no-build (use dist/ as it is), --dry-run (parse and print the
 * options, run nothing), --help. Before a benchmark starts, the runner builds
 * (npm run build, and the handlers the servers load: bench/tsconfig.build.json),
 * installs wrk, taskset, openssl or GNU time with apt-get when missing and
 * root, and runs the benchmark's own preparation; then the benchmark gets its
 * time limit. Its report goes to bench/results/<name>.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './support/benchmark.ts';
import { describeOptions, parseOptions } from './support/options.ts';
import { Report } from './support/report.ts';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

/** What a benchmark needs from the machine; `build` is dist/ (npm run build and the bench handlers). */
type Need = 'build' | 'wrk' | 'openssl' | 'gnu-time' | 'valgrind' | 'helm' | 'go' | 'root' | 'buildah' | 'cluster-tools';

interface Entry {
  readonly name: string;
  readonly title: string;
  /** The module, relative to bench/, whose default export is the Benchmark. */
  readonly module: string;
  readonly needs: readonly Need[];
  /** Its time limit, preparation not included. */
  readonly timeoutSeconds: number;
  /** Options of its smallest mode (--quick). */
  readonly quick: readonly string[];
}

export const BENCHMARKS: readonly Entry[] = [
  {
    name: 'generator-scale',
    title: 'Generator scaling: cold `shaper-gen manifests` by project size',
    module: 'generator/scale.ts',
    needs: ['build'],
    timeoutSeconds: 120,
    quick: ['--runs', '1', '--sizes', '20,200'],
  },
  {
    name: 'generator-startup',
    title: 'Generator start-up beside controller-gen',
    module: 'generator/startup.ts',
    needs: ['build', 'go', 'gnu-time'],
    timeoutSeconds: 300,
    quick: ['--runs', '1', '--files', '200'],
  },
  {
    name: 'dev-loop',
    title: 'Dev loop: from a save to `shaper-gen dev` serving it',
    module: 'generator/dev-loop.ts',
    needs: ['build'],
    timeoutSeconds: 600,
    quick: ['--saves', '2'],
  },
  {
    name: 'admission',
    title: 'Admission load: serve, the floor and the controller-runtime peer',
    module: 'admission/run.ts',
    needs: ['build', 'wrk', 'openssl', 'helm'],
    timeoutSeconds: 900,
    quick: ['--rounds', '1', '--duration', '1', '--connections', '32'],
  },
  {
    name: 'admission-express',
    title: "Express's router versus the admission fast path",
    module: 'admission/express.ts',
    needs: ['build', 'wrk', 'openssl', 'helm'],
    timeoutSeconds: 120,
    quick: ['--rounds', '1', '--duration', '1'],
  },
  {
    name: 'admission-profile',
    title: 'Where the time goes: serve under --cpu-prof',
    module: 'admission/profile.ts',
    needs: ['build', 'wrk', 'openssl', 'helm'],
    timeoutSeconds: 120,
    quick: ['--duration', '2'],
  },
  {
    name: 'admission-path',
    title: 'The admission request path in process, step by step, beside the hand-written server',
    module: 'admission/request-path.ts',
    needs: ['build', 'helm'],
    timeoutSeconds: 300,
    quick: ['--iterations', '2000', '--rounds', '2'],
  },
  {
    name: 'admission-path-instructions',
    title: 'Instructions per review of the request path in process, counted by valgrind, beside the hand-written server',
    module: 'admission/request-path-instructions.ts',
    needs: ['build', 'valgrind', 'helm'],
    timeoutSeconds: 900,
    quick: ['--reviews', '300', '--warm-up', '300', '--paths', '/mutate-profile'],
  },
  {
    name: 'admission-instructions',
    title: 'Instructions per admission request, counted by valgrind, beside the hand-written server',
    module: 'admission/instructions.ts',
    needs: ['build', 'valgrind', 'openssl', 'helm'],
    timeoutSeconds: 1800,
    quick: ['--requests', '300', '--warm-up', '300', '--paths', '/validate-allow-all'],
  },
  {
    name: 'faults',
    title: 'Malformed input, slow clients and a blocking handler',
    module: 'faults/run.ts',
    needs: ['build', 'openssl', 'helm'],
    timeoutSeconds: 600,
    quick: ['--sample', '20', '--hold-limit', '12'],
  },
  {
    name: 'memory',
    title: 'Memory under large reviews',
    module: 'memory/run.ts',
    needs: ['build', 'helm'],
    timeoutSeconds: 300,
    quick: ['--only', '7 MiB of zeros'],
  },
  {
    name: 'image',
    title: 'What the production image holds',
    module: 'image/run.ts',
    needs: ['root', 'buildah'],
    timeoutSeconds: 600,
    quick: [],
  },
  {
    name: 'cel-conformance',
    title: "cel-spec's conformance tests: @marcbachmann/cel-js beside @bufbuild/cel",
    module: 'cel-conformance/run.ts',
    needs: ['build'],
    timeoutSeconds: 300,
    quick: ['--files', 'basic,lists,optionals'],
  },
  {
    name: 'cel-engine-conformance',
    title: "cel-spec's conformance tests through the CEL engine (the API server's CEL environment, in WebAssembly)",
    module: 'cel-engine-conformance/run.ts',
    needs: ['go'],
    timeoutSeconds: 600,
    quick: ['--versions', '1.37'],
  },
  {
    name: 'cel-engine',
    title: "The CEL engine (the API server's CEL in WebAssembly): size, cold start, memory, compile and evaluation per call, beside cel-js",
    module: 'cel-engine/run.ts',
    needs: ['build', 'go'],
    timeoutSeconds: 300,
    quick: ['--runs', '200', '--cold', '2'],
  },
  {
    name: 'cache',
    title: 'Cached versus live lookups against a real API server',
    module: 'cache/run.ts',
    needs: ['build', 'wrk', 'openssl', 'helm', 'go', 'root', 'cluster-tools'],
    timeoutSeconds: 600,
    quick: ['--rounds', '1', '--duration', '1'],
  },
  {
    name: 'policy-vs-webhook',
    title: 'A ValidatingAdmissionPolicy versus a webhook, through a real API server',
    module: 'policy/run.ts',
    needs: ['build', 'helm', 'go', 'cluster-tools'],
    timeoutSeconds: 600,
    quick: ['--rounds', '1', '--requests', '50', '--concurrency', '1,8'],
  },
  {
    name: 'served-policy-engine',
    title: 'The CEL engine inside serve: policies enforced by serve beside a webhook doing the same check',
    module: 'policy/served-engine.ts',
    needs: ['build', 'wrk', 'helm'],
    timeoutSeconds: 600,
    quick: ['--rounds', '1', '--duration', '2', '--connections', '32', '--idle-seconds', '5'],
  },
];

const RUNNER_FLAGS = ['--quick', '--no-build', '--dry-run', '--help'] as const;
type RunnerFlags = Record<(typeof RUNNER_FLAGS)[number], boolean>;

/** Commands apt-get can install, by the package that has them (what bench/run.sh used to install). */
const APT: Partial<Record<Need, { readonly commands: readonly string[]; readonly packages: readonly string[] }>> = {
  wrk: { commands: ['wrk', 'taskset'], packages: ['wrk', 'util-linux'] },
  openssl: { commands: ['openssl'], packages: ['openssl'] },
  'gnu-time': { commands: ['/usr/bin/time'], packages: ['time'] },
  valgrind: { commands: ['valgrind', 'callgrind_control', 'taskset'], packages: ['valgrind', 'util-linux'] },
};

function has(command: string): boolean {
  return command.startsWith('/') ? existsSync(command) : spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function sh(command: string, args: readonly string[]): boolean {
  return spawnSync(command, args, { cwd: REPO, stdio: 'inherit' }).status === 0;
}

/** Why this machine cannot run the benchmark, or undefined; with `install`, installs what apt-get can when root. */
function unavailable(entry: Entry, canInstall: boolean): string | undefined {
  const root = process.getuid?.() === 0;
  for (const need of entry.needs) {
    const apt = APT[need];
    if (apt && !apt.commands.every(has)) {
      const install = ['install', '-y', '-qq', ...apt.packages];
      if (!root || !has('apt-get') || !canInstall) return `needs ${apt.commands.join(' and ')} (apt-get install ${apt.packages.join(' ')})`;
      if (!sh('apt-get', install) && !(sh('apt-get', ['update', '-qq']) && sh('apt-get', install))) return `apt-get install ${apt.packages.join(' ')} failed`;
    }
    if (need === 'go' && !has('go')) return 'needs Go';
    if (need === 'root' && !root) return 'needs root';
    if (need === 'buildah' && !has('buildah')) return 'needs buildah';
  }
  return undefined;
}

/** npm run build, then the handlers and servers the benchmarks start from dist/bench. */
function build(): void {
  if (!sh('npm', ['run', '--silent', 'build']) || !sh(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'bench/tsconfig.build.json'])) {
    throw new Error('bench: the build failed');
  }
}

/** Tools the benchmark's own code uses when they are there: helm renders the chart's NODE_OPTIONS; kindEnv's components. */
function installTools(entry: Entry): void {
  const cachedHelm = path.join(process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache/shaper-gen'), 'bin/helm');
  if (entry.needs.includes('helm') && !has('helm') && !existsSync(cachedHelm) && has('go')) sh('bash', ['scripts/install-helm.sh']);
  if (entry.needs.includes('cluster-tools') && !sh('bash', ['scripts/install-cluster-tools.sh'])) throw new Error('bench: scripts/install-cluster-tools.sh failed');
}

function splitFlags(argv: readonly string[]): { flags: RunnerFlags; rest: string[] } {
  const flags = Object.fromEntries(RUNNER_FLAGS.map((flag) => [flag, argv.includes(flag)])) as RunnerFlags;
  return { flags, rest: argv.filter((arg) => !(RUNNER_FLAGS as readonly string[]).includes(arg)) };
}

function list(): void {
  console.log('Benchmarks (node bench/run.ts <name> [options]; <name> --help for its options; all: every one in turn):\n');
  const width = Math.max(...BENCHMARKS.map((entry) => entry.name.length));
  for (const entry of BENCHMARKS) console.log(`  ${entry.name.padEnd(width)}  ${entry.title.replace(/`/g, '')}`);
  console.log(`\nRunner flags: --quick (smallest mode), --no-build, --dry-run (parse options only), --help. Reports: bench/results/<name>.md`);
}

async function runOne(entry: Entry, flags: RunnerFlags, userArgs: readonly string[]): Promise<number> {
  const benchmark = ((await import(`./${entry.module}`)) as { default: Benchmark }).default;
  if (flags['--help']) {
    console.log(`${entry.name}: ${entry.title.replace(/`/g, '')} (bench/${entry.module})\n\n${describeOptions(benchmark.options)}\n\n--quick: ${entry.quick.join(' ') || '(no smaller mode)'}`);
    return 0;
  }
  const args = [...(flags['--quick'] ? entry.quick : []), ...userArgs];
  const options = parseOptions(benchmark.options, args);
  const command = ['node bench/run.ts', entry.name, ...args.map((arg) => (/[\s']/.test(arg) ? `'${arg}'` : arg))].join(' ');
  if (flags['--dry-run']) {
    console.log(`${command}\n${JSON.stringify(options, null, 2)}\nneeds: ${entry.needs.join(', ')}; time limit ${entry.timeoutSeconds} s`);
    return 0;
  }
  const missing = unavailable(entry, true);
  if (missing !== undefined) throw new Error(`bench: ${entry.name} ${missing}`);
  if (entry.needs.includes('build') && !flags['--no-build']) build();
  installTools(entry);
  await benchmark.prepare?.(options);
  const timer = setTimeout(() => {
    console.error(`bench: ${entry.name} did not finish within ${entry.timeoutSeconds} s; stopped`);
    process.exit(124);
  }, entry.timeoutSeconds * 1000);
  timer.unref();
  const report = new Report(entry.title);
  const started = performance.now();
  await benchmark.main(options, report);
  clearTimeout(timer);
  const file = report.write(REPO, entry.name, command, (performance.now() - started) / 1000);
  console.log(`\nbench: wrote ${path.relative(REPO, file)}`);
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}

/** Every benchmark in turn, each in its own process; those the machine cannot run are skipped, a failure does not stop the rest. */
function runAll(flags: RunnerFlags, userArgs: readonly string[]): number {
  if (userArgs.length > 0) throw new Error(`bench: all takes only runner flags, not ${userArgs.join(' ')}`);
  const outcomes: string[] = [];
  const runnable = BENCHMARKS.filter((entry) => {
    const missing = unavailable(entry, !flags['--dry-run']);
    if (missing !== undefined) outcomes.push(`${entry.name}: skipped, ${missing}`);
    return missing === undefined;
  });
  if (!flags['--no-build'] && !flags['--dry-run']) build();
  for (const entry of runnable) {
    const args = [fileURLToPath(import.meta.url), entry.name, '--no-build', ...(flags['--quick'] ? ['--quick'] : []), ...(flags['--dry-run'] ? ['--dry-run'] : [])];
    console.log(`\n=== bench: ${entry.name} ===`);
    // A backstop: the benchmark stops itself at its time limit; its preparation (a first Go build) gets 20 minutes.
    const result = spawnSync(process.execPath, args, { cwd: REPO, stdio: 'inherit', timeout: (entry.timeoutSeconds + 1200) * 1000, killSignal: 'SIGKILL' });
    outcomes.push(`${entry.name}: ${result.status === 0 ? `ok${flags['--dry-run'] ? '' : `, bench/results/${entry.name}.md`}` : `failed (${result.signal ?? `exit ${result.status}`})`}`);
  }
  console.log(`\nbench: ${outcomes.join('\n       ')}`);
  return outcomes.some((outcome) => outcome.includes(': failed')) ? 1 : 0;
}

export async function main(argv: readonly string[]): Promise<number> {
  const { flags, rest } = splitFlags(argv);
  const [name, ...userArgs] = rest;
  if (name === undefined) {
    list();
    return 0;
  }
  if (name === 'all') return runAll(flags, userArgs);
  const entry = BENCHMARKS.find((candidate) => candidate.name === name);
  if (!entry) {
    console.error(`bench: no benchmark named ${name}\n`);
    list();
    return 2;
  }
  return runOne(entry, flags, userArgs);
}

if (import.meta.main) {
  try {
    // Servers a benchmark started are stopped by its exit handlers.
    process.exit(await main(process.argv.slice(2)));
  } catch (error) {
    // The runner's own refusals are one line; anything else keeps its stack.
    console.error(error instanceof Error && error.message.startsWith('bench: ') ? error.message : error);
    process.exit(1);
  }
}
