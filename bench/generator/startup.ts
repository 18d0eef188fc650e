/**
 * Start-up cost of `shaper-gen manifests` beside kubebuilder's controller-gen
 * (node bench/run.ts generator-startup; `controller-gen webhook paths=./...`,
 * v0.23.0) on projects of the same shape: the sample application (4 webhooks;
 * Go: the same four markers) and 2,000 files in packages of 100 with 200
 * webhooks. Cold processes, the two tools run alternately (order swapped every
 * round) after one warm-up run each; median wall time and peak RSS over
 * --runs rounds, and the targets. Also writes bench/results/generator-startup.json.
 *
 * controller-gen is built once with `go install` into the cache
 * ($SHAPER_GEN_CACHE or ~/.cache/shaper-gen, bench-bin/) by the preparation.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';
import { writeSampleGoProject, writeSyntheticGoProject } from '../support/synthetic-go-project.ts';
import { writeSyntheticProject } from '../support/synthetic-project.ts';

const CONTROLLER_GEN_VERSION = 'v0.23.0';
const TARGETS = { sampleWallSeconds: 0.3, largePeakRssMiB: 120 };
/** Every measured process is killed after this long; `go install` gets its own, longer, limit. */
const RUN_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;

const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const cli = path.join(repoRoot, 'dist/bin/shaper-gen.js');
const rssReporter = path.join(repoRoot, 'bench/support/peak-rss.mjs');
const gnuTime = () => ['/usr/bin/time', '/bin/time'].find((file) => existsSync(file));

interface Sample {
  readonly wallSeconds: number;
  readonly peakRssMiB: number;
  readonly stdout: string;
}

interface Tool {
  readonly name: 'shaper-gen' | 'controller-gen';
  readonly cwd: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** How many webhooks the run produced, from its output. */
  readonly webhooks: (sample: Sample) => number;
}

/** One cold run: wall time from spawn to exit; peak RSS from GNU time (else Node's own report; Go: not measured). */
function measure(tool: Tool, timeFile: string): Sample {
  const time = gnuTime();
  const options: SpawnSyncOptions = { cwd: tool.cwd, env: tool.env ?? process.env, encoding: 'utf8', timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' };
  let command = tool.command;
  let args = [...tool.args];
  if (time) {
    args = ['-f', '%M', '-o', timeFile, command, ...args];
    command = time;
  } else if (tool.name === 'shaper-gen') {
    args = ['--import', rssReporter, ...args];
  }
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, options);
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const stdout = String(result.stdout);
  if (result.error || result.status !== 0) {
    throw new Error(`${tool.name} failed in ${tool.cwd} (${result.error?.message ?? `exit ${result.status}`}):\n${stdout}${String(result.stderr)}`);
  }
  let peakRssKiB = NaN;
  if (time) peakRssKiB = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop());
  else if (tool.name === 'shaper-gen') peakRssKiB = Number(/SHAPER_BENCH_MAXRSS_KB=(\d+)/.exec(String(result.stderr))?.[1]);
  return { wallSeconds, peakRssMiB: peakRssKiB / 1024, stdout };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** controller-gen from the Go module proxy, built once into the cache. */
function ensureControllerGen(): string {
  const cache = process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen');
  const binDir = path.join(cache, 'bench-bin');
  const binary = path.join(binDir, process.platform === 'win32' ? 'controller-gen.exe' : 'controller-gen');
  const version = () => (spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS }).stdout as string | null)?.trim();
  if (existsSync(binary) && version() === `Version: ${CONTROLLER_GEN_VERSION}`) return binary;
  mkdirSync(binDir, { recursive: true });
  console.log(`building controller-gen ${CONTROLLER_GEN_VERSION} into ${binDir} (go install, once)…`);
  const install = spawnSync('go', ['install', `sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}`], {
    env: { ...process.env, GOBIN: binDir },
    stdio: 'inherit',
    timeout: INSTALL_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (install.error || install.status !== 0) {
    throw new Error(`go install of controller-gen failed (${install.error?.message ?? `exit ${install.status}`}); is Go installed and the module proxy reachable?`);
  }
  if (version() !== `Version: ${CONTROLLER_GEN_VERSION}`) throw new Error(`${binary} does not report ${CONTROLLER_GEN_VERSION}`);
  return binary;
}

function controllerGenTool(binary: string, cwd: string): Tool {
  return {
    name: 'controller-gen',
    cwd,
    command: binary,
    args: ['webhook', 'paths=./...'],
    // Nothing to download, no other toolchain, no workspace from outside the project.
    env: { ...process.env, GOTOOLCHAIN: 'local', GOPROXY: 'off', GOFLAGS: '', GOWORK: 'off' },
    webhooks: () => {
      const manifest = readFileSync(path.join(cwd, 'config/webhook/manifests.yaml'), 'utf8');
      return manifest.match(/^ {2}name: \S+\.shaper-gen\.io$/gm)?.length ?? 0;
    },
  };
}

function shaperGenTool(cwd: string, args: readonly string[]): Tool {
  return {
    name: 'shaper-gen',
    cwd,
    command: process.execPath,
    args: [cli, 'manifests', ...args],
    webhooks: (sample) => Number(/(\d+) webhooks/.exec(sample.stdout)?.[1] ?? NaN),
  };
}

interface Project {
  readonly name: string;
  /** Source files scanned: TypeScript / Go. */
  readonly files: { readonly ts: number; readonly go: number };
  readonly webhooks: number;
  readonly tools: readonly Tool[];
}

interface Row {
  readonly project: string;
  readonly tool: string;
  readonly files: number;
  readonly webhooks: number;
  readonly wallSeconds: number;
  readonly peakRssMiB: number;
  readonly wallSamples: readonly number[];
}

function countFiles(dir: string, accept: (file: string) => boolean): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(accept).length;
}

/** The sample and a synthetic project of `largeFiles` files, each in TypeScript and Go, written under `work`. */
function writeProjects(work: string, largeFiles: number, controllerGen: string): Project[] {
  const goSample = path.join(work, 'go-sample');
  const goLarge = path.join(work, `go-${largeFiles}`);
  const tsLarge = path.join(work, `ts-${largeFiles}`);
  writeSampleGoProject(goSample);
  const { markers } = writeSyntheticGoProject(goLarge, largeFiles);
  mkdirSync(tsLarge);
  const { decorated } = writeSyntheticProject(tsLarge, largeFiles, repoRoot);
  if (markers !== decorated) throw new Error(`Go project has ${markers} markers, TypeScript ${decorated} decorators`);
  return [
    {
      name: 'sample',
      files: {
        ts: countFiles(path.join(repoRoot, 'sample'), (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.generated.ts')),
        go: countFiles(goSample, (f) => f.endsWith('.go')),
      },
      webhooks: 4,
      // The repository's own sample through its shaper.yaml; --check writes nothing into the checkout.
      tools: [controllerGenTool(controllerGen, goSample), shaperGenTool(repoRoot, ['--check'])],
    },
    {
      name: `${largeFiles} files`,
      files: { ts: countFiles(path.join(tsLarge, 'src'), (f) => f.endsWith('.ts')), go: countFiles(goLarge, (f) => f.endsWith('.go')) },
      webhooks: decorated,
      tools: [controllerGenTool(controllerGen, goLarge), shaperGenTool(tsLarge, [])],
    },
  ];
}

/** One warm-up per tool (which must find every webhook), then `runs` alternating rounds; the medians per project and tool. */
function measureAll(projects: readonly Project[], runs: number, timeFile: string): Row[] {
  const samples = new Map<Tool, Sample[]>();
  for (const project of projects) {
    for (const tool of project.tools) {
      // Warm-up (file system cache, Node's compile cache, go list's cache), and a check that the run does the work.
      const found = tool.webhooks(measure(tool, timeFile));
      if (found !== project.webhooks) throw new Error(`${tool.name} found ${found} webhooks in ${project.name}, expected ${project.webhooks}`);
      samples.set(tool, []);
    }
  }
  for (let round = 0; round < runs; round++) {
    for (const project of projects) {
      const order = round % 2 === 0 ? project.tools : [...project.tools].reverse();
      for (const tool of order) samples.get(tool)!.push(measure(tool, timeFile));
    }
  }
  return projects.flatMap((project) =>
    project.tools.map((tool) => {
      const measured = samples.get(tool)!;
      return {
        project: project.name,
        tool: tool.name,
        files: tool.name === 'shaper-gen' ? project.files.ts : project.files.go,
        webhooks: project.webhooks,
        wallSeconds: median(measured.map((s) => s.wallSeconds)),
        peakRssMiB: median(measured.map((s) => s.peakRssMiB)),
        wallSamples: measured.map((s) => Number(s.wallSeconds.toFixed(3))),
      };
    }),
  );
}

function reportRows(report: Report, rows: readonly Row[], runs: number, largeFiles: number) {
  const row = (project: string, tool: string) => rows.find((r) => r.project === project && r.tool === tool)!;
  const sample = row('sample', 'shaper-gen');
  const largeTs = row(`${largeFiles} files`, 'shaper-gen');
  const largeGo = row(`${largeFiles} files`, 'controller-gen');
  const mib = (value: number) => (Number.isNaN(value) ? 'n/a' : value.toFixed(0));
  report.line(
    `\`shaper-gen manifests\` beside controller-gen ${CONTROLLER_GEN_VERSION} (\`webhook paths=./...\`): cold processes, alternating, ` +
      `median of ${runs}; peak RSS ${gnuTime() ? 'by GNU time' : 'by the process itself (Go: not measured)'}.`,
  );
  report.line();
  report.table(
    ['project', 'tool', 'files', 'webhooks', 'wall (s)', 'peak RSS (MiB)'],
    rows.map((r) => [r.project, r.tool, r.files, r.webhooks, r.wallSeconds.toFixed(2), mib(r.peakRssMiB)]),
  );
  const targets = [
    { target: `sample: shaper-gen wall ≤ ${TARGETS.sampleWallSeconds.toFixed(2)} s`, result: `${sample.wallSeconds.toFixed(2)} s`, met: sample.wallSeconds <= TARGETS.sampleWallSeconds },
    {
      target: `${largeFiles} files: shaper-gen wall ≤ controller-gen's`,
      result: `${largeTs.wallSeconds.toFixed(2)} s vs ${largeGo.wallSeconds.toFixed(2)} s`,
      met: largeTs.wallSeconds <= largeGo.wallSeconds,
    },
    { target: `${largeFiles} files: shaper-gen peak RSS ≤ ${TARGETS.largePeakRssMiB} MiB`, result: `${mib(largeTs.peakRssMiB)} MiB`, met: largeTs.peakRssMiB <= TARGETS.largePeakRssMiB },
  ];
  report.line();
  report.table(
    ['target', 'result', 'met'],
    targets.map((t) => [t.target, t.result, t.met ? '✔' : '✘']),
  );
  return targets;
}

export default defineBenchmark({
  options: {
    runs: { kind: 'number', default: 10, description: 'alternating rounds after the warm-up; medians are reported' },
    files: { kind: 'number', default: 2000, description: 'files of the large synthetic project (a tenth decorated)' },
  },
  prepare() {
    ensureControllerGen();
  },
  async main({ runs, files: largeFiles }, report) {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: npm run build first`);
    const controllerGen = ensureControllerGen();
    const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-startup-'));
    try {
      const rows = measureAll(writeProjects(work, largeFiles, controllerGen), runs, path.join(work, 'time.txt'));
      const targets = reportRows(report, rows, runs, largeFiles);
      mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
      writeFileSync(
        path.join(repoRoot, 'bench/results/generator-startup.json'),
        `${JSON.stringify({ node: process.version, controllerGen: CONTROLLER_GEN_VERSION, runs, rows, targets }, null, 2)}\n`,
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
});
