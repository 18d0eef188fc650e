/**
 * A user's project as `npm install shaper-gen` and `shaper-gen init` make it:
 * this checkout packed with `npm pack`, installed into a fresh `npm init`
 * project outside the repository, then scaffolded (npm install + manifests).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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

export async function createUserProject(name: string): Promise<UserProject> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-user-'));
  const dir = path.join(work, name);
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1', FORCE_COLOR: '0' };
  const sh = (command: string, args: string[], cwd = dir) => run(command, args, { cwd, env, maxBuffer: 32 * 1024 * 1024 });
  try {
    const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO_ROOT);
    const [pack] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    mkdirSync(dir);
    await sh('npm', ['init', '-y']);
    await sh('npm', ['install', path.join(work, pack.filename)]);
    const initOutput = (await sh('npx', ['shaper-gen', 'init'])).stdout;
    return { dir, packed: pack.files.map((f) => f.path).sort(), initOutput, sh, remove: () => rmSync(work, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}
