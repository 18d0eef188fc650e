/**
 * The README's install commands against a real npm registry: both packages
 * published with scripts/release.sh (`npm publish`) to Verdaccio on loopback,
 * then, in a fresh `npm init` project outside this checkout whose `.npmrc`
 * names that registry, the `npm install` lines of the README's Install section
 * as written there, `npx shaper-gen init` and the README's "Use it" steps up to
 * a chart the pinned helm renders. A next release of both, published the same
 * way, then shows the versions moving together: npm upgrades shaper-gen alone
 * with a mere warning, and the CLI refuses the mismatch in one line whose
 * command, run as printed, installs the matching generator from the registry.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { findObject, helmTemplate } from '../../support/helm.js';
import { startLocalRegistry, type LocalRegistry } from '../../support/local-registry.js';
import { GENERATOR_PACKAGE, outcome, quietEnv, RUNTIME_PACKAGE } from '../../support/user-project.js';

const run = promisify(execFile);
const NAME = 'registry-guard';
const COMMAND_MS = 300_000;
const POLICY_NAME = 'config-map-team-policy';
const PACKAGES = [RUNTIME_PACKAGE, GENERATOR_PACKAGE] as const;
const own = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const VERSION = own.version;
const NEXT = VERSION.replace(/\d+$/, (patch) => String(Number(patch) + 1));

let registry: LocalRegistry;
let work: string;
let project: string;
let released: string;
let initOutput: string;

/** No registry but the one the project's `.npmrc` names (npm passes its config to scripts as npm_config_*). */
const ENV = Object.fromEntries(Object.entries(quietEnv()).filter(([key]) => key.toLowerCase() !== 'npm_config_registry'));
/** Every command bounded: an install through the registry's proxy that hangs is ended, not waited for. */
const sh = (command: string, args: string[], cwd = project, env = ENV) => run(command, args, { cwd, env, maxBuffer: 32 * 1024 * 1024, timeout: COMMAND_MS });
const asPublisher = () => ({ ...ENV, npm_config_userconfig: registry.publisherConfig });

/** The commands of the sh block in README.md's Install section, as argument lists, comments left out. */
function readmeInstallCommands(): string[][] {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /^## Install\n[\s\S]*?^```sh\n([\s\S]*?)^```/m.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md: no ```sh block in the Install section');
  return block
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '')
    .map((line) => line.split(/\s+/));
}

/** This checkout's packages as `npm pack` gives them: name → integrity of the tarball. */
async function packedIntegrity(): Promise<Record<string, string>> {
  const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--dry-run', '--json', REPO_ROOT, path.join(REPO_ROOT, 'generator')], REPO_ROOT);
  return Object.fromEntries((JSON.parse(stdout) as { name: string; integrity: string }[]).map((pack) => [pack.name, pack.integrity]));
}

const installedVersion = (name: string) => (JSON.parse(readFileSync(path.join(project, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  registry = await startLocalRegistry();
  work = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-registry-user-'));
  released = (await sh('bash', [path.join(REPO_ROOT, 'scripts/release.sh'), VERSION, '--publish', '--no-build', '--registry', registry.url], REPO_ROOT, asPublisher())).stdout;
  project = path.join(work, NAME);
  mkdirSync(project);
  await sh('npm', ['init', '-y']);
  writeFileSync(path.join(project, '.npmrc'), `registry=${registry.url}\n`);
  for (const [command, ...args] of readmeInstallCommands()) await sh(command!, args);
  initOutput = (await sh('npx', ['shaper-gen', 'init'])).stdout;
}, 400_000);
afterAll(async () => {
  await (registry as LocalRegistry | undefined)?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('published with scripts/release.sh to a registry on loopback', () => {
  it('publishes both packages at the version both package.json files already name, shaper-gen first, changing no file', () => {
    expect(released.split('\n').filter((line) => line.startsWith('+ ') || line.startsWith('release:'))).toEqual(PACKAGES.map((name) => `+ ${name}@${VERSION}`));
  });

  it('refuses a version that is not semantic in one line, before writing anything', async () => {
    const refused = await outcome(sh('bash', [path.join(REPO_ROOT, 'scripts/release.sh'), '1.2', '--publish', '--registry', registry.url], REPO_ROOT, asPublisher()));
    expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'release: 1.2 is not a semantic version (such as 0.2.0); usage: scripts/release.sh <version> [--publish] [--registry <url>] [--no-build]\n',
    });
  });

  it('publishes exactly the tarballs npm pack gives', async () => {
    const packed = await packedIntegrity();
    const published: Record<string, string> = {};
    for (const name of PACKAGES) {
      const packument = await registry.packument(name);
      expect(packument['dist-tags'].latest).toBe(VERSION);
      published[name] = packument.versions[VERSION]!.dist.integrity;
    }
    expect(published).toEqual(packed);
  });
});

describe("the README's install commands in a fresh npm project whose .npmrc names the registry", () => {
  it('install both packages from the registry: registry ranges in package.json, the published tarballs in the lockfile, nothing vendored', async () => {
    expect(readmeInstallCommands().every(([command, subcommand]) => command === 'npm' && subcommand === 'install')).toBe(true);
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(manifest.dependencies).toEqual({ [RUNTIME_PACKAGE]: `^${VERSION}` });
    expect(manifest.devDependencies).toEqual({
      [GENERATOR_PACKAGE]: `^${VERSION}`,
      '@kubernetes/client-node': own.devDependencies['@kubernetes/client-node'],
      typescript: own.devDependencies.typescript,
      vitest: own.devDependencies.vitest,
      vite: own.devDependencies.vite,
      '@types/node': own.devDependencies['@types/node'],
    });
    const lock = JSON.parse(readFileSync(path.join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string; integrity: string }> };
    for (const name of PACKAGES) {
      const { version, integrity } = lock.packages[`node_modules/${name}`]!;
      expect({ name, version, integrity }).toEqual({ name, version: VERSION, integrity: (await registry.packument(name)).versions[VERSION]!.dist.integrity });
    }
    expect(initOutput).not.toContain('build context');
    expect(readdirSync(path.join(project, 'vendor'))).toEqual(['.gitkeep']);
  });

  it("follow the README's Use it steps to a chart helm renders: init, npm test, manifests, manifests:check, helm template", async () => {
    expect(initOutput).toContain(`wrote charts/${NAME}/templates/validating-webhook-configuration.yaml`);
    expect((await sh('npm', ['test'])).stdout).toMatch(/Tests\s+6 passed/);
    await sh('npm', ['run', 'manifests']);
    expect((await sh('npm', ['run', 'manifests:check'])).stdout).toContain('generated files are up to date (2 webhooks and 1 policy)');
    const objects = await helmTemplate(path.join(project, 'charts', NAME), { release: 'guard', namespace: 'guard-system' });
    const fullname = `guard-${NAME}`;
    const paths = (kind: string) => findObject(objects, kind, fullname).webhooks.map((webhook: { clientConfig: { service: { path: string } } }) => webhook.clientConfig.service.path);
    expect([paths('ValidatingWebhookConfiguration'), paths('MutatingWebhookConfiguration')]).toEqual([['/validate-configmap'], ['/mutate-deployment']]);
    expect(objects.map(({ kind, metadata }) => `${kind} ${metadata.name}`).sort()).toEqual(
      [
        `Certificate ${fullname}-ca`,
        `Certificate ${fullname}-serving-cert`,
        `ConfigMap ${fullname}-config`,
        `Deployment ${fullname}`,
        `Issuer ${fullname}-ca`,
        `Issuer ${fullname}-selfsigned`,
        `MutatingWebhookConfiguration ${fullname}`,
        `PodDisruptionBudget ${fullname}`,
        `Service ${fullname}`,
        `Service ${fullname}-metrics`,
        `ServiceAccount ${fullname}`,
        `ValidatingAdmissionPolicy ${POLICY_NAME}`,
        `ValidatingAdmissionPolicyBinding ${POLICY_NAME}`,
        `ValidatingWebhookConfiguration ${fullname}`,
      ].sort(),
    );
  });
});

describe('the next release, published the same way', () => {
  beforeAll(async () => {
    // The packed packages laid out as in this checkout, with the release script: scripts/release.sh sets NEXT there.
    const stage = path.join(work, 'release');
    const tarballs = path.join(work, 'tarballs');
    mkdirSync(tarballs);
    const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tarballs, REPO_ROOT, path.join(REPO_ROOT, 'generator')], REPO_ROOT);
    const [runtime, generator] = (JSON.parse(stdout) as { filename: string }[]).map(({ filename }) => path.join(tarballs, filename));
    for (const [tarball, dir] of [
      [runtime!, stage],
      [generator!, path.join(stage, 'generator')],
    ] as const) {
      mkdirSync(dir, { recursive: true });
      await sh('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], work);
    }
    for (const script of ['release.sh', 'env.sh']) cpSync(path.join(REPO_ROOT, 'scripts', script), path.join(stage, 'scripts', script));
    released = (await sh('bash', [path.join(stage, 'scripts/release.sh'), NEXT, '--publish', '--no-build', '--registry', registry.url], stage, asPublisher())).stdout;
  }, 120_000);

  it('sets one version in both package.json files and the peer dependency, then publishes both', async () => {
    expect(released.split('\n').filter((line) => line.startsWith('+ ') || line.startsWith('release:'))).toEqual([
      `release: package.json set to ${NEXT}`,
      `release: generator/package.json set to ${NEXT}`,
      ...PACKAGES.map((name) => `+ ${name}@${NEXT}`),
    ]);
    expect((await registry.packument(GENERATOR_PACKAGE)).versions[NEXT]!.peerDependencies).toEqual({ [RUNTIME_PACKAGE]: NEXT });
  });

  it('shaper-gen upgraded alone: npm only warns, and the CLI refuses the mismatch in one line whose command installs the matching generator', async () => {
    // The project asks for this version itself, so npm overrides the generator's exact peer dependency with a warning.
    expect((await sh('npm', ['install', `${RUNTIME_PACKAGE}@${NEXT}`])).stderr).toContain(`npm warn ERESOLVE overriding peer dependency`);
    expect(PACKAGES.map(installedVersion)).toEqual([NEXT, VERSION]);
    const refused = await outcome(sh('npx', ['shaper-gen', 'manifests']));
    expect({ code: refused.code, stderr: refused.stderr.trim().split('\n') }).toEqual({
      code: 1,
      stderr: [
        `shaper-gen manifests: ${GENERATOR_PACKAGE} ${VERSION} is installed, but ${RUNTIME_PACKAGE} is ${NEXT} and the two are released together: npm install --save-dev ${GENERATOR_PACKAGE}@${NEXT}`,
      ],
    });
    const [command, ...args] = refused.stderr.trim().split(': ').at(-1)!.split(' ');
    await sh(command!, args);
    expect(PACKAGES.map(installedVersion)).toEqual([NEXT, NEXT]);
    expect((await sh('npm', ['run', 'manifests:check'])).stdout).toContain('generated files are up to date (2 webhooks and 1 policy)');
  });
});
