/**
 * A real npm registry on loopback: Verdaccio (a devDependency, pinned), as other projects' CI runs it to
 * publish and install their packages. Its storage and configuration live in a temp dir. It holds what is
 * published to it under shaper-gen and @shaper-gen/*, and nothing else under those names; every other
 * package it proxies from the registry npm is configured with here, so a project installs from it alone.
 * Publishing takes a token of a throwaway user whose htpasswd entry is written at start, with a random password.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../support/free-port.js';
import { until } from './serve-process.js';

const run = promisify(execFile);
/** Installed by scripts/install-verdaccio.sh (run by scripts/setup.sh) into the tools cache. */
const VERDACCIO = path.join(process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen'), 'tools', 'verdaccio-6.10.4', 'node_modules/verdaccio/bin/verdaccio');
const PUBLISHER = 'publisher';
const START_MS = 60_000;
const STOP_MS = 10_000;

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** An npm user config holding the publisher's token for this registry alone: `npm_config_userconfig` for `npm publish`. */
  readonly publisherConfig: string;
  /** What the registry has for a package: its packument. */
  packument(name: string): Promise<{ 'dist-tags': Record<string, string>; versions: Record<string, { dist: { integrity: string }; peerDependencies?: Record<string, string> }> }>;
  /** What the registry printed. */
  output(): string;
  stop(): Promise<void>;
}

const config = (dir: string, upstream: string) => `storage: ${JSON.stringify(path.join(dir, 'storage'))}
auth:
  htpasswd:
    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}
    max_users: -1
uplinks:
  upstream:
    url: ${JSON.stringify(upstream)}
packages:
  'shaper-gen':
    access: $all
    publish: $authenticated
  '@shaper-gen/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    proxy: upstream
# The generator's tarball carries the CEL engine (about 17 MiB packed), above Verdaccio's default 10mb.
max_body_size: 64mb
web:
  enable: false
log: { type: stdout, format: pretty, level: warn }
`;

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-registry-'));
  const upstream = (await run('npm', ['config', 'get', 'registry'])).stdout.trim();
  writeFileSync(path.join(dir, 'config.yaml'), config(dir, upstream));
  const password = randomBytes(18).toString('base64url');
  writeFileSync(path.join(dir, 'htpasswd'), `${PUBLISHER}:{SHA}${createHash('sha1').update(password).digest('base64')}\n`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(process.execPath, [VERDACCIO, '--config', path.join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const exited = once(child, 'exit');
  // A worker that exits without stop() (a failed hook, a killed run) takes the registry with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const pinged = await until(
      async () =>
        child.exitCode !== null ||
        (await fetch(new URL('-/ping', url))
          .then((res) => res.ok)
          .catch(() => false)),
      START_MS,
    );
    if (!pinged || child.exitCode !== null) throw new Error(`Verdaccio did not answer on ${url} within ${START_MS / 1000} s:\n${output}`);
    // npm's legacy login: the user exists, so the registry answers the password with a token.
    const login = await fetch(new URL(`-/user/org.couchdb.user:${PUBLISHER}`, url), {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${PUBLISHER}:${password}`).toString('base64')}` },
      body: JSON.stringify({ name: PUBLISHER, password }),
    });
    const { token } = (await login.json()) as { token?: string };
    if (!login.ok || !token) throw new Error(`Verdaccio refused the publisher's login: HTTP ${login.status}\n${output}`);
    const publisherConfig = path.join(dir, 'publisher.npmrc');
    writeFileSync(publisherConfig, `//127.0.0.1:${port}/:_authToken=${token}\n`);
    const packument = async (name: string) => {
      const res = await fetch(new URL(name.replace('/', '%2f'), url));
      if (!res.ok) throw new Error(`${url} has no ${name}: HTTP ${res.status}`);
      return (await res.json()) as Awaited<ReturnType<LocalRegistry['packument']>>;
    };
    return { url, publisherConfig, packument, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
