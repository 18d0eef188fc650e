/**
 * Generator scaling: cold `shaper-gen manifests` on synthetic projects of
 * 20, 200 and 2,000 files (10% decorated) and on the sample. Prints wall time
 * and peak RSS (median of the runs); writes bench/results/generator-scale.json.
 *
 *   node bench/generator-scale.ts [--runs 3] [--sizes 20,200,2000]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticProject } from './support/synthetic-project.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repoRoot, 'dist/bin/shaper-gen.js');
const rssReporter = path.join(repoRoot, 'bench/support/peak-rss.mjs');

const argument = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
};
const runs = Number(argument('runs', '3'));
const sizes = argument('sizes', '20,200,2000').split(',').map(Number);

interface Row {
  project: string;
  files: number;
  decorated: number;
  wallSeconds: number;
  peakRssMiB: number;
}

function measure(cwd: string, args: string[]): { wallSeconds: number; peakRssMiB: number } {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--import', rssReporter, cli, 'manifests', ...args], { cwd, encoding: 'utf8' });
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`shaper-gen manifests failed in ${cwd}:\n${result.stdout}${result.stderr}`);
  const rss = /SHAPER_BENCH_MAXRSS_KB=(\d+)/.exec(result.stderr);
  return { wallSeconds, peakRssMiB: rss ? Number(rss[1]) / 1024 : NaN };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function measureMedian(cwd: string, args: string[] = []): { wallSeconds: number; peakRssMiB: number } {
  const samples = Array.from({ length: runs }, () => measure(cwd, args));
  return { wallSeconds: median(samples.map((s) => s.wallSeconds)), peakRssMiB: median(samples.map((s) => s.peakRssMiB)) };
}

const rows: Row[] = [];
for (const files of sizes) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `shaper-gen-bench-${files}-`));
  try {
    const { decorated } = writeSyntheticProject(dir, files, repoRoot);
    rows.push({ project: `synthetic-${files}`, files, decorated, ...measureMedian(dir) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
// The sample application, scanned through the repository's shaper.yaml; --check writes nothing.
rows.push({ project: 'sample (--check)', files: NaN, decorated: NaN, ...measureMedian(repoRoot, ['--check']) });

console.log(`shaper-gen manifests, cold process, median of ${runs} run(s), node ${process.version}, ${os.cpus().length} cores`);
console.log('project             files  decorated  wall (s)  peak RSS (MiB)');
for (const row of rows) {
  console.log(
    `${row.project.padEnd(18)} ${String(Number.isNaN(row.files) ? '-' : row.files).padStart(6)} ${String(Number.isNaN(row.decorated) ? '-' : row.decorated).padStart(10)} ${row.wallSeconds.toFixed(2).padStart(9)} ${row.peakRssMiB.toFixed(0).padStart(15)}`,
  );
}
mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
writeFileSync(path.join(repoRoot, 'bench/results/generator-scale.json'), `${JSON.stringify({ node: process.version, runs, rows }, null, 2)}\n`);
