/**
 * The dev loop (node bench/run.ts dev-loop): `shaper-gen dev` on a small
 * project (one webhook, the project's own `tsc` build, as `init` scaffolds
 * it), then saves that change the webhook's path, alternating in-place and
 * atomic (temporary file renamed over the source) saves; for each, the time
 * from the save to the server answering at the new path: the watch, manifests,
 * the build and the restart of `serve --dev`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../support/free-port.ts';
import { defineBenchmark } from '../support/benchmark.ts';

const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const cli = path.join(repoRoot, 'dist/bin/shaper-gen.js');

function webhook(webhookPath: string): string {
  return `import { Webhook } from 'shaper-gen';
@Webhook({ path: '${webhookPath}', mutating: false, rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['things'], operations: ['CREATE'] }] })
export class ThingValidator { validateCreate(): void {} }
`;
}

function writeProject(dir: string): void {
  const write = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  };
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  write('package.json', JSON.stringify({ name: 'dev-loop', private: true, type: 'module', scripts: { build: `node ${tsc} -p tsconfig.build.json` } }));
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: true, rootDir: 'src', outDir: 'dist', noEmit: true, types: [] },
      include: ['src'],
    }),
  );
  write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: false } }));
  write('shaper.yaml', 'apiVersion: shaper-gen.io/v1alpha1\nkind: GeneratorConfig\nsources: ["src/**/*.ts"]\n');
  write('src/thing-validator.ts', webhook('/validate-0'));
  mkdirSync(path.join(dir, 'node_modules/@shaper-gen'), { recursive: true });
  symlinkSync(repoRoot, path.join(dir, 'node_modules/shaper-gen'), 'dir');
  symlinkSync(path.join(repoRoot, 'generator'), path.join(dir, 'node_modules/@shaper-gen/generator'), 'dir');
  // A chart for `manifests` to write into: the sample's.
  cpSync(path.join(repoRoot, 'charts/shaper-webhooks'), path.join(dir, 'charts/shaper-webhooks'), { recursive: true });
}

async function answers(port: number, webhookPath: string): Promise<boolean> {
  const request = https.request({ host: '127.0.0.1', port, path: webhookPath, method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'content-type': 'application/json' } });
  request.end('{}');
  try {
    const [response] = (await once(request, 'response')) as [import('node:http').IncomingMessage];
    response.resume();
    return response.statusCode === 400;
  } catch {
    return false;
  }
}

async function waitServing(port: number, webhookPath: string, limitMs: number): Promise<number> {
  const started = performance.now();
  while (!(await answers(port, webhookPath))) {
    if (performance.now() - started > limitMs) throw new Error(`${webhookPath} not served after ${limitMs / 1000} s`);
    await setTimeout(50);
  }
  return (performance.now() - started) / 1000;
}

export default defineBenchmark({
  options: {
    saves: { kind: 'number', default: 10, description: 'saves measured (alternately in place and atomic)' },
  },
  async main({ saves }, report) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-bench-dev-'));
    writeProject(dir);
    const port = await freePort();
    const dev = spawn(process.execPath, [cli, 'dev', '--port', String(port)], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    dev.stdout.on('data', (chunk) => (output += String(chunk)));
    dev.stderr.on('data', (chunk) => (output += String(chunk)));
    const rows: [number, string, string][] = [];
    try {
      const first = await waitServing(port, '/validate-0', 120_000).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${output}`);
      });
      report.line(`First start (manifests, build, serve): ${first.toFixed(2)} s.`);
      for (let i = 1; i <= saves; i++) {
        const source = path.join(dir, 'src/thing-validator.ts');
        const atomic = i % 2 === 0;
        if (atomic) {
          writeFileSync(`${source}.tmp`, webhook(`/validate-${i}`));
          renameSync(`${source}.tmp`, source);
        } else writeFileSync(source, webhook(`/validate-${i}`));
        rows.push([i, atomic ? 'atomic' : 'in place', (await waitServing(port, `/validate-${i}`, 120_000)).toFixed(2)]);
        // Let the restarted server settle, so the next save starts a cycle of its own.
        await setTimeout(500);
      }
    } finally {
      dev.kill('SIGTERM');
      await once(dev, 'exit');
      rmSync(dir, { recursive: true, force: true });
    }
    const seconds = rows.map((row) => Number(row[2])).sort((a, b) => a - b);
    report.line();
    report.table(['save', 'kind', 'save to serving (s)'], rows);
    report.line();
    report.line(`Median ${seconds[Math.floor(seconds.length / 2)]!.toFixed(2)} s, fastest ${seconds[0]!.toFixed(2)} s, slowest ${seconds.at(-1)!.toFixed(2)} s over ${rows.length} saves.`);
  },
});
