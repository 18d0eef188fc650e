/**
 * The servers the admission benchmarks measure, started as deployed: the
 * floor (floor-server.ts, bare node:https, compiled like serve), the same
 * work written by hand (hand-written-server.ts), `shaper-gen
 * serve` with handlers.ts, the controller-runtime peer, and serve's webhooks
 * behind Express's router (express-routed-server.ts). The Node servers get
 * the chart's NODE_OPTIONS and container environment; pinned ones run on CPU
 * 0 (wrk runs on CPU 1). Also the helpers every admission benchmark uses:
 * request bodies on disk, wrk cells, waiting for idle servers, RSS.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../support/free-port.ts';
import type { OptionSpecs } from '../support/options.ts';
import { chartNodeOptions, chartProcessEnv } from '../support/chart-node-options.ts';
import { writeSelfSignedCertificate } from '../support/self-signed-certificate.ts';
import { runWrk, type WrkResult } from '../support/wrk.ts';
import { assignmentReview, largeProfileReview, profileReview } from './bodies.ts';
import { peerArguments } from './controller-runtime-peer.ts';

export const REPO = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The option every admission benchmark has: the Node flags of the floor and serve. */
export const NODE_FLAGS_OPTION = {
  'node-flags': { kind: 'string', description: "node flags for the floor and serve (default: the chart's rendered NODE_OPTIONS; or $SHAPER_BENCH_NODE_FLAGS)" },
} as const satisfies OptionSpecs;

export interface Server {
  port: number;
  pid: number;
  child: ChildProcess;
}

export type BodyName = 'profile' | 'assignment' | 'large';
/** The path of the file holding each request body. */
export type Bodies = Record<BodyName, string>;

export interface Servers {
  readonly nodeFlags: readonly string[];
  /** A scratch directory, removed on exit. */
  readonly work: string;
  /** A serving certificate for localhost in `certDir` (tls.crt, tls.key). */
  readonly tls: { cert: string; key: string; certDir: string };
  readonly bodies: Bodies;
  startFloor(): Promise<Server>;
  /** The sample's Profile webhooks written by hand on bare node:https (hand-written-server.ts), pinned to CPU 0. */
  startHandWritten(): Promise<Server>;
  /** The same after other work in its process (hand-written-busy-server.ts), pinned to CPU 0. */
  startHandWrittenBusy(): Promise<Server>;
  /** Pinned to CPU 0 with GOMAXPROCS=1 like the others, or on both CPUs with GOMAXPROCS=2. */
  startPeer(binary: string, placement: 'pinned' | 'both-cpus'): Promise<Server>;
  /** One process pinned to CPU 0, or with `workers` > 1 processes on both CPUs. */
  startFramework(extraFlags?: readonly string[], workers?: number): Promise<Server>;
  /** serve's admission endpoints registered with Express's `app.post(path, …)`, pinned to CPU 0. */
  startExpressRouted(): Promise<Server>;
}

/** How node servers are started: `wrapper` runs each under another program (valgrind), with `readySeconds` to come up and `extraNodeFlags` after the others. */
export interface Launch {
  readonly wrapper: readonly string[];
  readonly readySeconds: number;
  readonly extraNodeFlags?: readonly string[];
}

/** Sets up the scratch directory, bodies and certificate; every server started is killed when the process exits. */
export function createServers(nodeFlagsOption: string | undefined, launch: Launch = { wrapper: [], readySeconds: 20 }): Servers {
  const given = nodeFlagsOption ?? process.env.SHAPER_BENCH_NODE_FLAGS;
  const nodeFlags = [...(given === undefined ? chartNodeOptions(REPO) : given.split(' ').filter(Boolean)), ...(launch.extraNodeFlags ?? [])];
  // The rest of the chart's container environment, for every server alike.
  const processEnv = chartProcessEnv(REPO);
  const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-bench-'));
  const children: ChildProcess[] = [];
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });
  const { cert, key } = writeSelfSignedCertificate(work);
  const tls = { cert, key, certDir: path.dirname(cert) };
  const bodies = writeBodies(work);

  const pinned = (command: string, args: readonly string[], extra: SpawnOptions = {}): ChildProcess => {
    const wrapped = command === process.execPath ? [...launch.wrapper, command, ...args] : [command, ...args];
    const child = spawn('taskset', ['-c', '0', ...wrapped], { stdio: ['ignore', 'pipe', 'pipe'], env: processEnv, ...extra });
    children.push(child);
    return child;
  };
  const unpinned = (command: string, args: readonly string[], options: SpawnOptions): ChildProcess => {
    const child = spawn(command, args, options);
    children.push(child);
    return child;
  };
  const announced = async (child: ChildProcess): Promise<Server> => {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    return { port: Number(/listening (\d+)/.exec(line.toString())![1]), pid: child.pid!, child };
  };

  return {
    nodeFlags,
    work,
    tls,
    bodies,
    startFloor: () => announced(pinned(process.execPath, [...nodeFlags, path.join(REPO, 'dist/bench/admission/floor-server.js'), cert, key])),
    startHandWritten: () => announced(pinned(process.execPath, [...nodeFlags, path.join(REPO, 'dist/bench/admission/hand-written-server.js'), cert, key])),
    startHandWrittenBusy: () => announced(pinned(process.execPath, [...nodeFlags, path.join(REPO, 'dist/bench/admission/hand-written-busy-server.js'), cert, key])),
    startExpressRouted: () => announced(pinned(process.execPath, [...nodeFlags, path.join(REPO, 'dist/bench/admission/express-routed-server.js'), tls.certDir], { cwd: REPO })),
    async startPeer(binary, placement) {
      const port = await freePort();
      const options: SpawnOptions = { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GOMAXPROCS: placement === 'pinned' ? '1' : '2' } };
      const child = placement === 'pinned' ? pinned(binary, peerArguments(port, tls.certDir), options) : unpinned(binary, peerArguments(port, tls.certDir), options);
      await peerListening(child, port);
      return { port, pid: child.pid!, child };
    },
    async startFramework(extraFlags = [], workers = 1) {
      const [port, health, metrics] = [await freePort(), await freePort(), await freePort()];
      const config = path.join(work, `server-${port}.yaml`);
      writeFileSync(
        config,
        `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [dist/bench/admission/handlers.js]
webhook: { bindAddress: 127.0.0.1, port: ${port}, certDir: ${tls.certDir} }
health: { bindAddress: 127.0.0.1, port: ${health} }
metrics: { bindAddress: 127.0.0.1, port: ${metrics} }
shutdown: { drainSeconds: 0, timeoutSeconds: 5 }
log: { level: warn }
`,
      );
      const args = [...nodeFlags, ...extraFlags, path.join(REPO, 'dist/bin/shaper-gen.js'), 'serve', '--config', config, ...(workers > 1 ? ['--workers', String(workers)] : [])];
      const options: SpawnOptions = { cwd: REPO, env: processEnv, stdio: ['ignore', 'inherit', 'inherit'] };
      const child = workers === 1 ? pinned(process.execPath, args, options) : unpinned(process.execPath, args, options);
      await ready(child, health, launch.readySeconds);
      return { port, pid: child.pid!, child };
    },
  };
}

function writeBodies(work: string): Bodies {
  const reviews: Record<BodyName, unknown> = { profile: profileReview(), assignment: assignmentReview(), large: largeProfileReview() };
  const files = {} as Bodies;
  for (const name of Object.keys(reviews) as BodyName[]) {
    files[name] = path.join(work, `${name}.json`);
    writeFileSync(files[name], JSON.stringify(reviews[name]));
  }
  return files;
}

/** Waits (20 s at most) for the peer's "listening <port>", passing on its stderr but wrk's dropped handshakes. */
async function peerListening(child: ChildProcess, port: number): Promise<void> {
  // wrk drops the connections it is still opening when its time is up, and net/http logs each one.
  child.stderr!.on('data', (chunk: Buffer) => {
    const lines = chunk
      .toString()
      .split('\n')
      .filter((line) => line && !/http: TLS handshake error from [\d.:]+: EOF$/.test(line));
    if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
  });
  let output = '';
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`listening ${port}`)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the controller-runtime peer exited (${code}) before serving`)));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the controller-runtime peer did not serve within 20 s')), 20_000)));
  try {
    await Promise.race([listening, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits (`seconds` at most) until serve's /readyz answers 200. */
async function ready(child: ChildProcess, health: number, seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get({ host: '127.0.0.1', port: health, path: '/readyz', agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until || child.exitCode !== null) throw new Error('shaper-gen serve did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One wrk cell; `body` is the path of the file holding the request body. */
export function wrk(port: number, urlPath: string, body: string, connections: number, seconds: number): WrkResult {
  return runWrk({ port, urlPath, bodyFile: body, connections, seconds });
}

/** CPU time the processes have used so far, in clock ticks (utime + stime, fields 14 and 15 of /proc/<pid>/stat). */
export function cpuTicks(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    total += Number(fields[11]) + Number(fields[12]);
  }
  return total;
}

/**
 * Waits (at most 15 s) until the servers stop using CPU. A server still working through requests wrk
 * gave up on (the peer's 200 KB defaulter at 128 connections has seconds of them) would otherwise take
 * CPU 0 from the next cell.
 */
export async function untilIdle(pids: readonly number[]): Promise<void> {
  const until = Date.now() + 15_000;
  let before = cpuTicks(pids);
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuTicks(pids);
    // At most 20 ms of CPU in 200 ms (at 100 ticks a second): timers and GC, no requests.
    if (now - before <= 2) return;
    before = now;
  }
  process.stderr.write('servers still busy after 15 s; going on\n');
}

/** VmRSS and VmHWM from /proc/<pid>/status; RssAnon is the part that is not the node binary's and libraries' mapped pages. */
export function rssMiB(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
