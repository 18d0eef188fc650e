/**
 * A user's project as `npm install shaper-gen` and `shaper-gen init` make it:
 * this checkout packed with `npm pack`, installed into a fresh `npm init`
 * project outside the repository, then scaffolded (npm install + manifests).
 */
import { execFile } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './fixture-project.js';

const run = promisify(execFile);

export interface UserProject {
  readonly dir: string;
  /** The files `npm pack` put in the tarball, sorted. */
  readonly packed: readonly string[];
  /** What `shaper-gen init` printed. */
  readonly initOutput: string;
  /** Runs a command in the project (or `cwd`), without colour or npm's notices. */
  sh(command: string, args: string[], cwd?: string): Promise<{ stdout: string; stderr: string }>;
  remove(): void;
}

export interface UserProjectOptions {
  /**
   * Install the package from an HTTP URL on loopback (served until remove()) instead of a file path, so
   * package.json and the lockfile name a source that a container build on this host can fetch too, as
   * it would fetch from a registry: the scaffolded Dockerfile then builds unchanged.
   */
  tarballOverHttp?: boolean;
}

export async function createUserProject(name: string, options: UserProjectOptions = {}): Promise<UserProject> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-user-'));
  const dir = path.join(work, name);
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1', FORCE_COLOR: '0' };
  const sh = (command: string, args: string[], cwd = dir) => run(command, args, { cwd, env, maxBuffer: 32 * 1024 * 1024 });
  let tarballServer: http.Server | undefined;
  const remove = () => {
    tarballServer?.close();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO_ROOT);
    const [pack] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    mkdirSync(dir);
    await sh('npm', ['init', '-y']);
    let source = path.join(work, pack.filename);
    if (options.tarballOverHttp) {
      tarballServer = http.createServer((req, res) => {
        if (req.url !== `/${pack.filename}`) return res.writeHead(404).end();
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        createReadStream(path.join(work, pack.filename)).pipe(res);
      });
      await new Promise<void>((resolve) => tarballServer!.listen(0, '127.0.0.1', resolve));
      source = `http://127.0.0.1:${(tarballServer.address() as AddressInfo).port}/${pack.filename}`;
    }
    await sh('npm', ['install', source]);
    const initOutput = (await sh('npx', ['shaper-gen', 'init'])).stdout;
    if (options.tarballOverHttp) addMissingOptionalPackages(path.join(dir, 'package-lock.json'));
    return { dir, packed: pack.files.map((f) => f.path).sort(), initOutput, sh, remove };
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
