/**
 * The images' installs, replayed from their Dockerfiles without an image
 * builder (test/support/dockerfile.ts): a scaffolded project's image, built
 * from a copy of the project that holds only what git would track, and the
 * repository's own sample image. Their production trees must hold exactly
 * the closure of the production dependencies in the lockfile, and none of the
 * generator's packages.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayDockerfile } from '../../support/dockerfile.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { installedLocations, packageName, productionClosure } from '../../support/production-tree.js';
import { createUserProject, GENERATOR_PACKAGE, RUNTIME_PACKAGE, type UserProject } from '../../support/user-project.js';

const run = promisify(execFile);
const NAME = 'team-guard';
const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
/** The generator and what it brings: none may reach a production tree. */
const GENERATOR_PACKAGES = ['@marcbachmann/cel-js', '@shaper-gen/generator', '@ts-morph/common', 'handlebars', 'ts-morph', 'typescript'];

let user: UserProject;
let scratch: string;

beforeAll(async () => {
  user = await createUserProject(NAME);
  scratch = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-image-'));
}, 300_000);
afterAll(() => {
  (user as UserProject | undefined)?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A copy of the project holding the files git would track (its .gitignore applied): no node_modules, no dist. */
async function cleanCheckout(project: string, destination: string): Promise<string[]> {
  await run('git', ['init', '--quiet'], { cwd: project });
  const { stdout } = await run('git', ['ls-files', '-z', '--others', '--exclude-standard'], { cwd: project });
  const files = stdout.split('\0').filter(Boolean).sort();
  for (const file of files) {
    mkdirSync(path.dirname(path.join(destination, file)), { recursive: true });
    cpSync(path.join(project, file), path.join(destination, file));
  }
  return files;
}

describe("a scaffolded project's image", () => {
  it('builds from a clean checkout with the project as the whole context: shaper-gen from vendor/, the production tree without the generator', async () => {
    const context = path.join(scratch, 'checkout');
    const files = await cleanCheckout(user.dir, context);
    expect(files.filter((file) => /^(node_modules|dist)\//.test(file))).toEqual([]);
    expect(files.filter((file) => file.startsWith('vendor/'))).toEqual(['vendor/.gitkeep', `vendor/shaper-gen-${version}.tgz`, `vendor/shaper-gen-generator-${version}.tgz`]);

    const stages = await replayDockerfile({ dockerfile: path.join(context, 'Dockerfile'), context, workDir: path.join(scratch, 'stages'), env: user.env });
    const deps = stages.get('deps')!;
    const production = installedLocations(deps.workdir);
    expect(production).toEqual(productionClosure(path.join(context, 'package-lock.json')));
    expect(production.map(packageName).filter((name) => GENERATOR_PACKAGES.includes(name))).toEqual([]);
    // The scaffold's handlers use only client-node's types: a dev dependency, absent from the image.
    expect([production.includes(`node_modules/${RUNTIME_PACKAGE}`), production.includes('node_modules/@kubernetes/client-node')]).toEqual([true, false]);

    const image = [...stages.values()].at(-1)!;
    const cli = (...args: string[]) => run(image.entrypoint![0]!, [...image.entrypoint!.slice(1), ...args], { cwd: image.workdir, env: { ...user.env, ...image.env } });
    expect((await cli('--version')).stdout).toBe(`${version}\n`);
    const manifests = await cli('manifests').then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(manifests && { code: manifests.code, stdout: manifests.stdout, stderr: manifests.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `shaper-gen manifests: needs ${GENERATOR_PACKAGE}, which is not installed in ${image.workdir}: npm install --save-dev ${GENERATOR_PACKAGE}@${version}\n`,
    });
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', "const { webhooks } = await import('./dist/webhooks.generated.js'); console.log(webhooks.map((w) => w.name).join(' '))"],
      { cwd: image.workdir },
    );
    expect(stdout).toBe('ConfigMapValidator DeploymentDefaulter\n');
  }, 300_000);
});

describe("the repository's sample image", () => {
  it("installs the runtime's production dependencies alone, from the repository's lockfile", async () => {
    const stages = await replayDockerfile({ dockerfile: path.join(REPO_ROOT, 'Dockerfile'), context: REPO_ROOT, workDir: path.join(scratch, 'sample-stages'), target: 'deps', env: user.env });
    expect([...stages.keys()]).toEqual(['deps']);
    const production = installedLocations(stages.get('deps')!.workdir);
    expect(production).toEqual(productionClosure(path.join(REPO_ROOT, 'package-lock.json')));
    expect(production.map(packageName).filter((name) => [...GENERATOR_PACKAGES, RUNTIME_PACKAGE, '@kubernetes/client-node'].includes(name))).toEqual([]);
  }, 120_000);
});
