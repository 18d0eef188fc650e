/** The built CLI, run as a user runs it, in a project that resolves shaper-gen to its published dist/*.d.ts. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureProject, REPO_ROOT, type FixtureProject } from '../../support/fixture-project.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/shaper-gen.js');
let project: FixtureProject | undefined;
afterEach(() => project?.remove());

function shaperGen(cwd: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' });
}

/** The CLI with its cache directory (Node's compile cache, the compiler's code cache) under `cacheHome`. */
function shaperGenCachingIn(cacheHome: string, cwd: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cacheHome };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env });
}

const RULES = "[{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] }]";

describe('this repository', () => {
  it('has committed chart webhook configurations and handlers index that match the sample decorators (manifests --check)', () => {
    const result = shaperGen(REPO_ROOT, 'manifests', '--check');
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('shaper-gen: generated files are up to date (4 webhooks, 4 policies, 1 conversion and 2 CRDs)\n');
    expect(result.status).toBe(0);
  });
});

describe('shaper-gen manifests (built CLI, installed-package resolution)', () => {
  it('finds the decorator through the published type declarations and writes the files', () => {
    project = createFixtureProject(
      {
        'src/hooks.ts': `import { Webhook as Hook } from 'shaper-gen';
@Hook({ path: '/validate-profile', mutating: false, rules: ${RULES} })
export class ProfileValidator { validateCreate() {} }`,
      },
      { resolveTo: 'dist' },
    );
    const result = shaperGen(project.dir, 'manifests');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^shaper-gen: 1 webhook from 1 of 1 file; 8 files updated in \d+\.\d+s\n/);
    expect(project.read('charts/shaper-webhooks/templates/validating-webhook-configuration.yaml')).toContain('path: "/validate-profile"');
    expect(shaperGen(project.dir, 'manifests', '--check').status).toBe(0);
  });

  it('exits 1 with sorted file:line:col diagnostics and writes nothing', () => {
    project = createFixtureProject(
      {
        'src/hooks.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-profile', mutating: true, rules: ${RULES}, timeoutSeconds: 31 })
export class ProfileValidator { default() {} }`,
      },
      { resolveTo: 'dist' },
    );
    const result = shaperGen(project.dir, 'manifests', '--config', 'shaper.yaml');
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      [
        'src/hooks.ts:2:18: a mutating webhook\'s path must start with "/mutate-", got "/validate-profile"',
        'src/hooks.ts:2:180: timeoutSeconds must be a whole number from 1 to 30, got number 31',
        'shaper-gen: 2 problems; nothing was written',
        '',
      ].join('\n'),
    );
    expect(existsSync(project.file('src/webhooks.generated.ts'))).toBe(false);
    expect(existsSync(project.file('charts/shaper-webhooks/templates/mutating-webhook-configuration.yaml'))).toBe(false);
  });

  it('names a missing config file', () => {
    project = createFixtureProject({}, { shaperYaml: null });
    const result = shaperGen(project.dir, 'manifests', '--config', 'nope.yaml');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('nope.yaml:1:1: config file not found');
  });
});

describe('init, create api, manifests and dev in a project without @shaper-gen/generator', () => {
  const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  const install = `npm install --save-dev @shaper-gen/generator@${version}`;
  let scratch: string | undefined;
  afterEach(() => scratch && rmSync(scratch, { recursive: true, force: true }));

  it('print one line naming what is missing and the command that installs it, and exit 1', () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-no-generator-'));
    const commands = ['init', 'manifests', 'dev', 'create api'];
    const outcomes = commands.map((command) => {
      const args = command === 'create api' ? ['create', 'api', '--group', 'webapp.example.com', '--version', 'v1', '--kind', 'Guestbook'] : [command];
      const { status, stdout, stderr } = shaperGen(scratch!, ...args);
      return { command, status, stdout, stderr };
    });
    expect(outcomes).toEqual(
      commands.map((command) => ({
        command,
        status: 1,
        stdout: '',
        stderr: `shaper-gen ${command}: needs @shaper-gen/generator, which is not installed in ${scratch}: ${install}\n`,
      })),
    );
  });

  it('name the version to install when the project has another', () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-other-generator-'));
    const installed = path.join(scratch, 'node_modules/@shaper-gen/generator');
    mkdirSync(installed, { recursive: true });
    writeFileSync(path.join(installed, 'package.json'), JSON.stringify({ name: '@shaper-gen/generator', version: '0.0.1', exports: { './package.json': './package.json' } }));
    const { status, stdout, stderr } = shaperGen(scratch, 'manifests', '--check');
    expect({ status, stdout, stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `shaper-gen manifests: @shaper-gen/generator 0.0.1 is installed, but shaper-gen is ${version} and the two are released together: ${install}\n`,
    });
  });

  it('list them in the help all the same, with their flags', () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-no-generator-'));
    const help = shaperGen(scratch, '--help');
    expect(help.status).toBe(0);
    const commands = help.stdout
      .slice(help.stdout.indexOf('Commands:'))
      .split('\n')
      .flatMap((line) => /^ {2}(\w+) /.exec(line)?.[1] ?? []);
    expect(commands).toEqual(['init', 'create', 'manifests', 'dev', 'serve', 'help']);
    const manifests = shaperGen(scratch, 'manifests', '--help');
    expect(manifests.status).toBe(0);
    expect(manifests.stdout.split('\n').flatMap((line) => /^ {2}(-[^\s,]+(?:, --[^\s,]+)?)/.exec(line)?.[1] ?? [])).toEqual([
      '-c, --config',
      '--check',
      '--stdout',
      '--static',
      '--static-url',
      '--static-ca-bundle',
      '-h, --help',
    ]);
  });
});

describe('start-up caches (best effort)', () => {
  let scratch: string | undefined;
  afterEach(() => scratch && rmSync(scratch, { recursive: true, force: true }));

  it('work the same where the cache directory cannot be created', () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-cache-'));
    writeFileSync(path.join(scratch, 'file'), '');
    const result = shaperGenCachingIn(path.join(scratch, 'file', 'cache'), REPO_ROOT, 'manifests', '--check');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('replace corrupt cache files instead of trusting them', () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-cache-'));
    const first = shaperGenCachingIn(scratch, REPO_ROOT, 'manifests', '--check');
    expect(first.status).toBe(0);
    const files = readdirSync(scratch, { recursive: true, encoding: 'utf8' })
      .map((f) => path.join(scratch!, f))
      .filter((f) => statSync(f).isFile());
    const codeCache = files.filter((f) => f.includes(`${path.sep}typescript-code-cache${path.sep}`));
    expect(codeCache).toHaveLength(1);
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) writeFileSync(file, 'not a cache');
    const second = shaperGenCachingIn(scratch, REPO_ROOT, 'manifests', '--check');
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe(first.stdout);
    expect(second.status).toBe(0);
    expect(statSync(codeCache[0]!).size).toBeGreaterThan(100_000);
  });
});
