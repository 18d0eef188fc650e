/**
 * `shaper-gen dev` (the built CLI, a real file system watch, the project's own
 * build, `serve --dev`) against every kind of save an editor or a shell makes:
 * in place, atomic (a temporary file renamed over the source), again in place
 * after an atomic save, a new file, a rename out of and into the sources, a
 * deletion, a directory moved in. Each is seen when the server answers at the
 * paths the sources now declare, and at no other.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import https from 'node:https';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../support/free-port.js';
import { request } from '../../support/admission-server.js';
import { createFixtureProject, REPO_ROOT, type FixtureProject } from '../../support/fixture-project.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/shaper-gen.js');
const TSC = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

/** A validating webhook at `webhookPath`, in a class of its own name. */
function webhook(className: string, webhookPath: string): string {
  return `import { Webhook } from 'shaper-gen';
@Webhook({ path: '${webhookPath}', mutating: false, rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['things'], operations: ['CREATE'] }] })
export class ${className} { validateCreate(): void {} }
`;
}

let project: FixtureProject;
let port: number;
let output = '';
let dev: ReturnType<typeof spawn>;

beforeAll(async () => {
  project = createFixtureProject(
    {
      'package.json': JSON.stringify({ name: 'dev-loop', private: true, type: 'module', scripts: { build: `node ${TSC} -p tsconfig.build.json` } }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: true, rootDir: 'src', outDir: 'dist', noEmit: true, types: [] },
        include: ['src'],
      }),
      'tsconfig.build.json': JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: false } }),
      'src/a.ts': webhook('AValidator', '/validate-a'),
    },
    { resolveTo: 'dist' },
  );
  port = await freePort();
  dev = spawn(process.execPath, [CLI, 'dev', '--port', String(port)], { cwd: project.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  dev.stdout!.on('data', (chunk) => (output += String(chunk)));
  dev.stderr!.on('data', (chunk) => (output += String(chunk)));
}, 30_000);

afterAll(async () => {
  if (dev.exitCode === null) {
    dev.kill('SIGTERM');
    await once(dev, 'exit');
  }
  project.remove();
});

/** 400 for a registered path (the empty body is no AdmissionReview), 404 for another, undefined while nothing listens. */
async function status(webhookPath: string): Promise<number | undefined> {
  const options = { host: '127.0.0.1', port, path: webhookPath, method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'content-type': 'application/json' } };
  return (await request(https, options, '{}').catch(() => undefined))?.status;
}

/** Waits until the server answers at exactly `served` among `paths`. */
async function serving(served: readonly string[], paths: readonly string[]): Promise<void> {
  const answers = async () => Object.fromEntries(await Promise.all(paths.map(async (p) => [p, await status(p)] as const)));
  const expected = Object.fromEntries(paths.map((p) => [p, served.includes(p) ? 400 : 404]));
  // Every 250 ms: each poll is a TLS handshake per path, on the cores the rebuild needs.
  for (const end = Date.now() + 90_000; Date.now() < end && JSON.stringify(await answers()) !== JSON.stringify(expected);) await setTimeout(250);
  expect(await answers(), output).toEqual(expected);
}

const ALL = ['/validate-a', '/validate-a1', '/validate-a2', '/validate-a3', '/validate-b', '/validate-d'];

describe('shaper-gen dev sees every kind of save', () => {
  it('serves the sources at start', async () => {
    await serving(['/validate-a'], ALL);
  }, 100_000);

  it('an in-place write', async () => {
    writeFileSync(project.file('src/a.ts'), webhook('AValidator', '/validate-a1'));
    await serving(['/validate-a1'], ALL);
  }, 100_000);

  it('an atomic save: a temporary file renamed over the source', async () => {
    writeFileSync(project.file('src/.a.ts.swp'), webhook('AValidator', '/validate-a2'));
    renameSync(project.file('src/.a.ts.swp'), project.file('src/a.ts'));
    await serving(['/validate-a2'], ALL);
  }, 100_000);

  it('an in-place write after the atomic save (the file is a new inode now)', async () => {
    writeFileSync(project.file('src/a.ts'), webhook('AValidator', '/validate-a3'));
    await serving(['/validate-a3'], ALL);
  }, 100_000);

  it('a new file', async () => {
    writeFileSync(project.file('src/b.ts'), webhook('BValidator', '/validate-b'));
    await serving(['/validate-a3', '/validate-b'], ALL);
  }, 100_000);

  it('a rename out of the sources, then back in under another name', async () => {
    renameSync(project.file('src/b.ts'), project.file('src/b.ts.off'));
    await serving(['/validate-a3'], ALL);
    renameSync(project.file('src/b.ts.off'), project.file('src/c.ts'));
    await serving(['/validate-a3', '/validate-b'], ALL);
  }, 200_000);

  it('a deletion', async () => {
    rmSync(project.file('src/c.ts'));
    await serving(['/validate-a3'], ALL);
  }, 100_000);

  it('a directory moved in, and its later edits', async () => {
    mkdirSync(project.file('incoming'));
    writeFileSync(project.file('incoming/d.ts'), webhook('DValidator', '/validate-b'));
    renameSync(project.file('incoming'), project.file('src/more'));
    await serving(['/validate-a3', '/validate-b'], ALL);
    writeFileSync(project.file('src/more/d.ts'), webhook('DValidator', '/validate-d'));
    await serving(['/validate-a3', '/validate-d'], ALL);
  }, 200_000);

  it('restarts serve --dev without the production drain period', () => {
    const drains = output
      .split('\n')
      .filter((line) => line.includes('"shutting down: unready, draining"'))
      .map((line) => (JSON.parse(line) as { drainSeconds: number }).drainSeconds);
    expect(drains.length).toBeGreaterThanOrEqual(8);
    expect(new Set(drains)).toEqual(new Set([0]));
  });
});
