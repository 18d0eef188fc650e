/**
 * The controller-runtime peer (bench/peers/controller-runtime): built with
 * `go build` into the cache ($SHAPER_GEN_CACHE or ~/.cache/shaper-gen,
 * bench-bin/), under a name carrying the hash of its sources, so it is rebuilt
 * only when go.mod, go.sum or a .go file changes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PEER_SOURCE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../peers/controller-runtime');
const BINARY_PREFIX = 'controller-runtime-peer-';
const BUILD_TIMEOUT_MS = 15 * 60_000;

export type PeerBinary = { path: string; builtInMs?: number } | { path?: undefined; unavailable: string };

function sourceHash(): string {
  const hash = createHash('sha256');
  const files = readdirSync(PEER_SOURCE_DIR)
    .filter((name) => name === 'go.mod' || name === 'go.sum' || name.endsWith('.go'))
    .sort();
  for (const name of files)
    hash
      .update(`${name}\0`)
      .update(readFileSync(path.join(PEER_SOURCE_DIR, name)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The peer's binary for the current sources, built first if there is none. */
export function peerBinary(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): PeerBinary {
  const binDir = path.join(process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen'), 'bench-bin');
  const binary = path.join(binDir, `${BINARY_PREFIX}${sourceHash()}`);
  if (existsSync(binary)) return { path: binary };
  if (spawnSync('go', ['version'], { timeout: 30_000 }).status !== 0) {
    return { unavailable: 'Go is not installed and no peer binary is cached for these sources' };
  }
  mkdirSync(binDir, { recursive: true });
  log(`building the controller-runtime peer into ${binary} (go build; the first build takes minutes)…`);
  const partial = `${binary}.partial`;
  const started = performance.now();
  const build = spawnSync('go', ['build', '-trimpath', '-o', partial, '.'], {
    cwd: PEER_SOURCE_DIR,
    // Only what go.sum pins, with the installed toolchain; never a workspace from outside.
    env: { ...process.env, GOTOOLCHAIN: 'local', GOWORK: 'off', GOFLAGS: '-mod=readonly' },
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: BUILD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (build.error || build.status !== 0) {
    rmSync(partial, { force: true });
    throw new Error(`go build of the controller-runtime peer failed (${build.error?.message ?? `exit ${build.status}`})`);
  }
  const builtInMs = performance.now() - started;
  log(`built the controller-runtime peer in ${(builtInMs / 1000).toFixed(1)} s`);
  renameSync(partial, binary);
  // Builds for earlier sources are about 40 MB each; keep only this one.
  for (const name of readdirSync(binDir)) {
    if (name.startsWith(BINARY_PREFIX) && path.join(binDir, name) !== binary) rmSync(path.join(binDir, name), { force: true });
  }
  return { path: binary, builtInMs };
}

/** Arguments for the peer: it reads tls.crt and tls.key from certDir and prints "listening <port>" once serving. */
export function peerArguments(port: number, certDir: string): string[] {
  return ['--host', '127.0.0.1', '--port', String(port), '--cert-dir', certDir];
}
