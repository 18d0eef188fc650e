/**
 * What the sample's image holds (node bench/run.ts image; root and buildah):
 * the repository's Dockerfile built with buildah (on the stand-in Node base
 * of scripts/install-node-images.sh, which it runs), then measured from its
 * mounted root file system: the Node run-time base (the binary and the
 * libraries it links), the application layers (/app), the whole image as
 * buildah reports it, and node_modules by package.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineBenchmark } from '../support/benchmark.ts';
import type { Report } from '../support/report.ts';

const repo = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MB = 1000 * 1000;
const sh = (command: string, args: string[], cwd = repo) => execFileSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();

/** Bytes of the files under `dir` (symbolic links not followed), as `du -sb` counts them. */
function bytesUnder(dir: string): number {
  return Number(sh('du', ['-sb', dir]).split('\t')[0]);
}

function packagesBySize(nodeModules: string): { name: string; bytes: number }[] {
  const packages: { name: string; bytes: number }[] = [];
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    const dir = path.join(nodeModules, entry);
    if (!statSync(dir).isDirectory()) continue;
    const names = entry.startsWith('@') ? readdirSync(dir).map((scoped) => `${entry}/${scoped}`) : [entry];
    for (const name of names) packages.push({ name, bytes: bytesUnder(path.join(nodeModules, name)) });
  }
  return packages.sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}

function measureImage(report: Report): void {
  const nodeBase = sh('bash', [path.join(repo, 'scripts/install-node-images.sh')])
    .split('\n')
    .at(-1)!;
  const image = 'localhost/shaper-webhooks-bench:latest';
  const started = Date.now();
  sh('buildah', ['bud', '--quiet', '--layers', '--pull-never', '--network', 'host', '--build-arg', `NODE_IMAGE=${nodeBase}`, '-t', image, '-f', 'Dockerfile', '.']);
  const buildSeconds = (Date.now() - started) / 1000;
  const sizeOf = (name: string) => sh('buildah', ['images', '--noheading', '--format', '{{.Size}}', name]).split('\n')[0];

  const container = sh('buildah', ['from', '--pull-never', image]);
  try {
    const root = sh('buildah', ['mount', container]);
    const everything = bytesUnder(root);
    const app = bytesUnder(path.join(root, 'app'));
    const nodeModules = path.join(root, 'app/node_modules');
    const packages = packagesBySize(nodeModules);
    const mb = (bytes: number) => (bytes / MB).toFixed(1);
    report.line(`image: the repository's Dockerfile on ${nodeBase} (${sizeOf(nodeBase)}), built in ${buildSeconds.toFixed(0)} s\n`);
    report.line('| part | MB |\n|---|---:|');
    report.line(`| Node run-time base (node binary, the C libraries it links) | ${mb(everything - app)} |`);
    report.line(`| application layers (/app) | ${mb(app)} |`);
    report.line(`| of which node_modules (${packages.length} packages) | ${mb(bytesUnder(nodeModules))} |`);
    report.line(`| of which the compiled server and handlers (/app/dist) | ${mb(bytesUnder(path.join(root, 'app/dist')))} |`);
    report.line(`| whole image (files) | ${mb(everything)} |`);
    report.line(`| whole image (buildah images) | ${sizeOf(image)} |`);
    const listed = packages.filter(({ bytes }) => bytes >= 0.1 * MB);
    const rest = packages.slice(listed.length);
    report.line('\nnode_modules by package (MB), largest first:');
    report.line(`${listed.map(({ name, bytes }) => `${name} ${mb(bytes)}`).join(', ')}; ${rest.length} more under 0.1 MB each, ${mb(rest.reduce((sum, { bytes }) => sum + bytes, 0))} together`);
  } finally {
    sh('buildah', ['umount', container]);
    sh('buildah', ['rm', container]);
  }
}

export default defineBenchmark({
  options: {},
  async main(_options, report) {
    measureImage(report);
  },
});
