/**
 * A user's project as `npm install shaper-gen` and `shaper-gen init` make it:
 * this checkout packed with `npm pack`, installed into a fresh `npm init`
 * project outside the repository, then scaffolded (npm install + manifests).
 */
import { execFile } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
    return { dir, packed: pack.files.map((f) => f.path).sort(), initOutput, sh, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
