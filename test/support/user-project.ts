/**
 * A user's project as `npm install shaper-gen`, `npm install --save-dev
 * @shaper-gen/generator` and `shaper-gen init` make it: this checkout's two
 * packages packed with `npm pack` (outside the project, as a downloaded
 * release would be), installed into a fresh `npm init` project, then
 * scaffolded (npm install + manifests). init copies the two tarballs into the
 * project's vendor/ and points package.json at the copies, so the project and
 * its lockfile name nothing outside it: the scaffolded Dockerfile builds from
 * the project directory alone.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './fixture-project.js';

const run = promisify(execFile);

export const RUNTIME_PACKAGE = 'shaper-gen';
export const GENERATOR_PACKAGE = '@shaper-gen/generator';

export interface PackedPackage {
  /** The tarball's file name, as `npm pack` named it. */
  readonly filename: string;
  /** The files `npm pack` put in it, sorted. */
  readonly files: readonly string[];
}

export interface UserProject {
  readonly dir: string;
  /** The packed packages, by name: shaper-gen and @shaper-gen/generator. */
  readonly packed: Readonly<Record<typeof RUNTIME_PACKAGE | typeof GENERATOR_PACKAGE, PackedPackage>>;
  /** What `shaper-gen init` printed. */
  readonly initOutput: string;
  /** The environment the project's commands run with: no colour, audit, fund or update notices. */
  readonly env: NodeJS.ProcessEnv;
  /** Runs a command in the project (or `cwd`), without colour or npm's notices. */
  sh(command: string, args: string[], cwd?: string): Promise<{ stdout: string; stderr: string }>;
  remove(): void;
}

/** The environment a user's commands run with here: this process's, without colour, audit, fund or update notices. */
export const quietEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
});

/** A command's exit code and output, also when it fails. */
export async function outcome(run: Promise<{ stdout: string; stderr: string }>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await run) };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

export async function createUserProject(name: string): Promise<UserProject> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-user-'));
  const dir = path.join(work, name);
  const env = quietEnv();
  const sh = (command: string, args: string[], cwd = dir) => run(command, args, { cwd, env, maxBuffer: 32 * 1024 * 1024 });
  const remove = () => rmSync(work, { recursive: true, force: true });
  try {
    const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work, REPO_ROOT, path.join(REPO_ROOT, 'generator')], REPO_ROOT);
    const packs = JSON.parse(stdout) as { name: string; filename: string; files: { path: string }[] }[];
    const packedAs = (name: string): PackedPackage => {
      const pack = packs.find((p) => p.name === name);
      if (!pack) throw new Error(`npm pack made no ${name} tarball`);
      return { filename: pack.filename, files: pack.files.map((f) => f.path).sort() };
    };
    const packed = { [RUNTIME_PACKAGE]: packedAs(RUNTIME_PACKAGE), [GENERATOR_PACKAGE]: packedAs(GENERATOR_PACKAGE) };
    mkdirSync(dir);
    await sh('npm', ['init', '-y']);
    await sh('npm', ['install', path.join(work, packed[RUNTIME_PACKAGE].filename)]);
    await sh('npm', ['install', '--save-dev', path.join(work, packed[GENERATOR_PACKAGE].filename)]);
    const initOutput = (await sh('npx', ['shaper-gen', 'init'])).stdout;
    addMissingOptionalPackages(path.join(dir, 'package-lock.json'));
    return { dir, packed, initOutput, env, sh, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * The npm registry mirror on this project's machines lacks some platform packages (rollup's
 * win32/darwin builds, …), so a lockfile written here has no entries for them, and `npm ci` (the
 * scaffolded Dockerfile's install) refuses it as out of sync. This adds the entries a lockfile
 * written against the full registry has: optional, for another platform; npm ci on Linux skips them.
 */
export function addMissingOptionalPackages(lockfile: string): void {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, { version?: string; optionalDependencies?: Record<string, string> }> };
  let added = 0;
  for (const [location, entry] of Object.entries(lock.packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
      if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
      lock.packages[`node_modules/${name}`] = { version, optional: true, os: [platformOf(name)], cpu: [cpuOf(name)] } as never;
      added++;
    }
  }
  if (added > 0) writeFileSync(lockfile, `${JSON.stringify(lock, null, 2)}\n`);
}

const platformOf = (name: string) => /win32|darwin|freebsd|openbsd|android|sunos|aix|netbsd|openharmony/.exec(name)?.[0] ?? 'linux';
const cpuOf = (name: string) => /arm64|x64|ia32|arm|riscv64|s390x|ppc64|loong64|wasm32/.exec(name)?.[0] ?? 'x64';
