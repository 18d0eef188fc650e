/**
 * Generator scaling (node bench/run.ts generator-scale): cold `shaper-gen
 * manifests` on synthetic projects of 20, 200 and 2,000 files (10% decorated)
 * and on the sample; wall time and peak RSS, median of the runs. Also writes
 * bench/results/generator-scale.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineBenchmark } from '../support/benchmark.ts';
import { writeSyntheticProject } from '../support/synthetic-project.ts';

const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const cli = path.join(repoRoot, 'dist/bin/shaper-gen.js');
const rssReporter = path.join(repoRoot, 'bench/support/peak-rss.mjs');

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

function measureMedian(runs: number, cwd: string, args: string[] = []): { wallSeconds: number; peakRssMiB: number } {
  const samples = Array.from({ length: runs }, () => measure(cwd, args));
  return { wallSeconds: median(samples.map((s) => s.wallSeconds)), peakRssMiB: median(samples.map((s) => s.peakRssMiB)) };
}

export default defineBenchmark({
  options: {
    runs: { kind: 'number', default: 3, description: 'cold runs per project; the median is reported' },
    sizes: { kind: 'numbers', default: [20, 200, 2000], description: 'synthetic project sizes, in files' },
  },
  async main({ runs, sizes }, report) {
    const rows: Row[] = [];
    for (const files of sizes) {
      const dir = mkdtempSync(path.join(os.tmpdir(), `shaper-gen-bench-${files}-`));
      try {
        const { decorated } = writeSyntheticProject(dir, files, repoRoot);
        rows.push({ project: `synthetic-${files}`, files, decorated, ...measureMedian(runs, dir) });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    // The sample application, scanned through the repository's shaper.yaml; --check writes nothing.
    rows.push({ project: 'sample (`--check`)', files: NaN, decorated: NaN, ...measureMedian(runs, repoRoot, ['--check']) });

    report.line(`\`shaper-gen manifests\`, cold process, median of ${runs} run(s).`);
    report.line();
    const count = (value: number) => (Number.isNaN(value) ? '–' : value);
    report.table(
      ['project', 'files', 'decorated', 'wall (s)', 'peak RSS (MiB)'],
      rows.map((row) => [row.project, count(row.files), count(row.decorated), row.wallSeconds.toFixed(2), row.peakRssMiB.toFixed(0)]),
    );
    mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    writeFileSync(path.join(repoRoot, 'bench/results/generator-scale.json'), `${JSON.stringify({ node: process.version, runs, rows }, null, 2)}\n`);
  },
});
