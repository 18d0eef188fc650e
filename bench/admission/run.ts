/**
 * Admission load: the framework (`shaper-gen serve` with bench/admission/handlers.ts)
 * against the floor (bench/admission/floor-server.ts, bare node:https), on
 * loopback over HTTPS with keep-alive; servers pinned to CPU 0, wrk to CPU 1.
 * Interleaved rounds; the median of each figure and of each per-round ratio
 * to the floor with the same body is reported.
 *
 *   node bench/admission/run.ts [--rounds 3] [--duration 3] [--connections 1,8,32,128] [--profile]
 *
 * --profile instead runs serve under --cpu-prof with the 32-connection
 * validate load and prints the self time by module and the top functions.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assignmentReview, largeProfileReview, profileReview } from './bodies.ts';
import { summariseProfile } from './profile-summary.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argument = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
};
const rounds = Number(argument('rounds', '3'));
const duration = Number(argument('duration', '3'));
const connections = argument('connections', '1,8,32,128').split(',').map(Number);
const profileMode = process.argv.includes('--profile');
const expressMode = process.argv.includes('--express-comparison');
// V8 flags for both servers (floor and framework alike): by default the chart's own nodeOptions, so the
// figures describe the server as deployed.
const chartNodeOptions = /^nodeOptions:\s*"([^"]*)"/m.exec(readFileSync(path.join(repo, 'charts/shaper-webhooks/values.yaml'), 'utf8'))?.[1] ?? '';
const nodeFlags = argument('node-flags', process.env.SHAPER_BENCH_NODE_FLAGS ?? chartNodeOptions).split(' ').filter(Boolean);

const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-bench-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

function writeBodies() {
  const bodies = { profile: profileReview(), assignment: assignmentReview(), large: largeProfileReview() };
  const files: Record<keyof typeof bodies, string> = { profile: '', assignment: '', large: '' };
  for (const [name, body] of Object.entries(bodies) as [keyof typeof bodies, unknown][]) {
    files[name] = path.join(work, `${name}.json`);
    writeFileSync(files[name], JSON.stringify(body));
  }
  return files;
}

function writeCertificate(): { cert: string; key: string } {
  const cert = path.join(work, 'tls.crt');
  const key = path.join(work, 'tls.key');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return { cert, key };
}

async function freePort(): Promise<number> {
  const server = http.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function pinned(cpu: number, command: string, args: string[], extra: Parameters<typeof spawn>[2] = {}): ChildProcess {
  const child = spawn('taskset', ['-c', String(cpu), command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...extra });
  children.push(child);
  return child;
}

async function startFloor(cert: string, key: string): Promise<{ port: number; pid: number; child: ChildProcess }> {
  const child = pinned(0, process.execPath, [...nodeFlags, path.join(repo, 'bench/admission/floor-server.ts'), cert, key]);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { port: Number(/listening (\d+)/.exec(line.toString())![1]), pid: child.pid!, child };
}

async function startFramework(certDir: string, extraFlags: string[] = []): Promise<{ port: number; pid: number; child: ChildProcess }> {
  const [port, health] = [await freePort(), await freePort()];
  const config = path.join(work, 'server.yaml');
  writeFileSync(config, `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [dist/bench/admission/handlers.js]
webhook: { bindAddress: 127.0.0.1, port: ${port}, certDir: ${certDir} }
health: { bindAddress: 127.0.0.1, port: ${health} }
metrics: { port: 0 }
shutdown: { drainSeconds: 0, timeoutSeconds: 5 }
log: { level: warn }
`);
  const child = pinned(0, process.execPath, [...nodeFlags, ...extraFlags, path.join(repo, 'dist/bin/shaper-gen.js'), 'serve', '--config', config], { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
  const until = Date.now() + 20_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      http.get({ host: '127.0.0.1', port: health, path: '/readyz', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      }).on('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > until || child.exitCode !== null) throw new Error('shaper-gen serve did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, pid: child.pid!, child };
}

interface WrkResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  errors: number;
}

function wrk(port: number, urlPath: string, body: string, conns: number, seconds: number): WrkResult {
  const result = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${conns}`, `-d${seconds}s`, '--latency', '-s', path.join(repo, 'bench/admission/wrk-report.lua'), `https://127.0.0.1:${port}${urlPath}`], {
    encoding: 'utf8',
    env: { ...process.env, SHAPER_BENCH_BODY: body },
    timeout: (seconds + 30) * 1000,
  });
  const line = /SHAPER_BENCH_RESULT (\{.*\})/.exec(result.stdout ?? '');
  if (!line) throw new Error(`wrk failed: ${result.stdout}${result.stderr}`);
  const r = JSON.parse(line[1]!) as { requests: number; durationUs: number; errors: number; p50Us: number; p99Us: number; p999Us: number };
  return { rps: r.requests / (r.durationUs / 1e6), p50Ms: r.p50Us / 1000, p99Ms: r.p99Us / 1000, p999Ms: r.p999Us / 1000, errors: r.errors };
}

const rssMiB = (pid: number, field: 'VmRSS' | 'VmHWM') => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Workload {
  name: string;
  server: 'floor' | 'framework';
  path: string;
  body: 'profile' | 'assignment' | 'large';
}

const WORKLOADS: Workload[] = [
  { name: 'floor (profile body)', server: 'floor', path: '/', body: 'profile' },
  { name: 'allow-all', server: 'framework', path: '/validate-allow-all', body: 'profile' },
  { name: 'mutate-profile', server: 'framework', path: '/mutate-profile', body: 'profile' },
  { name: 'floor (assignment body)', server: 'floor', path: '/', body: 'assignment' },
  { name: 'validate-assignment', server: 'framework', path: '/validate-assignment', body: 'assignment' },
  { name: 'floor (200 KB body)', server: 'floor', path: '/', body: 'large' },
  { name: 'mutate-profile (200 KB)', server: 'framework', path: '/mutate-profile', body: 'large' },
];

async function main() {
  const bodies = writeBodies();
  const { cert, key } = writeCertificate();
  const certDir = path.dirname(cert);

  if (profileMode) return profile(certDir, bodies.assignment);
  if (expressMode) return expressComparison(cert, key, certDir, bodies);

  // Small and large bodies go to separate server processes: V8 keeps the heap a 200 KB workload grew,
  // which would otherwise be charged to the small-body workloads that follow it.
  const servers = {
    floor: { small: await startFloor(cert, key), large: await startFloor(cert, key) },
    framework: { small: await startFramework(certDir), large: await startFramework(certDir) },
  };
  const serverOf = (w: Workload) => servers[w.server][w.body === 'large' ? 'large' : 'small'];
  const idle = { floorMiB: rssMiB(servers.floor.small.pid, 'VmRSS'), frameworkMiB: rssMiB(servers.framework.small.pid, 'VmRSS') };

  process.stderr.write('warm-up\n');
  for (const w of WORKLOADS) wrk(serverOf(w).port, w.path, bodies[w.body], 8, 1);
  const idleAfterWarmup = { floorMiB: rssMiB(servers.floor.small.pid, 'VmRSS'), frameworkMiB: rssMiB(servers.framework.small.pid, 'VmRSS') };

  const samples = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const conns of connections) {
      for (const w of WORKLOADS) {
        process.stderr.write(`round ${round}/${rounds} c=${conns} ${w.name}\n`);
        const key = `${w.name}@${conns}`;
        samples.set(key, [...(samples.get(key) ?? []), wrk(serverOf(w).port, w.path, bodies[w.body], conns, duration)]);
      }
    }
  }
  const peak = {
    floorMiB: rssMiB(servers.floor.small.pid, 'VmHWM'),
    frameworkMiB: rssMiB(servers.framework.small.pid, 'VmHWM'),
    floorLargeBodyMiB: rssMiB(servers.floor.large.pid, 'VmHWM'),
    frameworkLargeBodyMiB: rssMiB(servers.framework.large.pid, 'VmHWM'),
  };

  const floorFor = (w: Workload) => WORKLOADS.find((f) => f.server === 'floor' && f.body === w.body)!;
  const rows = [];
  for (const conns of connections) {
    for (const w of WORKLOADS) {
      const runs = samples.get(`${w.name}@${conns}`)!;
      const floorRuns = samples.get(`${floorFor(w).name}@${conns}`)!;
      rows.push({
        workload: w.name,
        connections: conns,
        rps: median(runs.map((r) => r.rps)),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        p999Ms: median(runs.map((r) => r.p999Ms)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
        ratioToFloor: w.server === 'floor' ? 1 : median(runs.map((r, i) => r.rps / floorRuns[i]!.rps)),
      });
    }
  }

  const table = [
    '| workload | conns | req/s | × floor | p50 ms | p99 ms | p99.9 ms | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.workload} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.ratioToFloor.toFixed(2)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.p999Ms.toFixed(2)} | ${r.errors} |`),
  ].join('\n');
  const memory = [
    `RSS (MiB) idle: floor ${idle.floorMiB.toFixed(1)} (includes Node's TypeScript stripping), shaper-gen serve ${idle.frameworkMiB.toFixed(1)} (${idleAfterWarmup.frameworkMiB.toFixed(1)} after warm-up)`,
    `Peak RSS (MiB) over the whole run, the instances serving 1-2 KB bodies: floor ${peak.floorMiB.toFixed(1)}, shaper-gen serve ${peak.frameworkMiB.toFixed(1)}; the instances serving the 200 KB body: floor ${peak.floorLargeBodyMiB.toFixed(1)}, shaper-gen serve ${peak.frameworkLargeBodyMiB.toFixed(1)}`,
  ].join('\n');
  console.log(`\nAdmission load: ${rounds} interleaved rounds × ${duration} s per cell, medians; servers on CPU 0, wrk on CPU 1; Node ${process.version}${nodeFlags.length ? `; node flags ${nodeFlags.join(' ')}` : ''}\n`);
  console.log(table);
  console.log(`\n${memory}\n`);

  const out = path.join(repo, 'bench/results');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, 'admission.json');
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, nodeFlags, rounds, durationSeconds: duration, rows, rss: { idle, idleAfterWarmup, peak } }, null, 2)}\n`);
  console.log(`wrote ${path.relative(repo, file)}`);
}

/** Before/after: the admission endpoints behind Express's router versus the raw-path fast path, same process layout. */
async function expressComparison(cert: string, key: string, certDir: string, bodies: Record<'profile' | 'assignment' | 'large', string>) {
  const floor = await startFloor(cert, key);
  const fast = await startFramework(certDir);
  const child = pinned(0, process.execPath, [...nodeFlags, path.join(repo, 'dist/bench/admission/express-routed-server.js'), certDir], { cwd: repo });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const viaExpress = { port: Number(/listening (\d+)/.exec(line.toString())![1]) };
  const cells = [
    { name: 'floor (profile body)', port: floor.port, path: '/', body: bodies.profile },
    { name: 'allow-all, fast path', port: fast.port, path: '/validate-allow-all', body: bodies.profile },
    { name: 'allow-all, Express router', port: viaExpress.port, path: '/validate-allow-all', body: bodies.profile },
    { name: 'floor (assignment body)', port: floor.port, path: '/', body: bodies.assignment },
    { name: 'validate-assignment, fast path', port: fast.port, path: '/validate-assignment', body: bodies.assignment },
    { name: 'validate-assignment, Express router', port: viaExpress.port, path: '/validate-assignment', body: bodies.assignment },
  ];
  for (const cell of cells) wrk(cell.port, cell.path, cell.body, 8, 1);
  const runs = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const cell of cells) runs.set(cell.name, [...(runs.get(cell.name) ?? []), wrk(cell.port, cell.path, cell.body, 32, duration)]);
  }
  console.log(`\nExpress router (before) versus fast path (after): 32 connections, ${rounds} rounds × ${duration} s, medians\n`);
  console.log('| workload | req/s | × floor | p99 ms |\n|---|---:|---:|---:|');
  for (const cell of cells) {
    const floorName = cell.body === bodies.profile ? 'floor (profile body)' : 'floor (assignment body)';
    const own = runs.get(cell.name)!;
    const ratio = median(own.map((r, i) => r.rps / runs.get(floorName)![i]!.rps));
    console.log(`| ${cell.name} | ${median(own.map((r) => r.rps)).toFixed(0)} | ${ratio.toFixed(2)} | ${median(own.map((r) => r.p99Ms)).toFixed(2)} |`);
  }
}

async function profile(certDir: string, body: string) {
  const dir = path.join(work, 'cpu-prof');
  const framework = await startFramework(certDir, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  wrk(framework.port, '/validate-assignment', body, 32, 2);
  const result = wrk(framework.port, '/validate-assignment', body, 32, 10);
  framework.child.kill('SIGTERM');
  await once(framework.child, 'exit');
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
  console.log(`\nCPU profile of shaper-gen serve, validate-assignment at 32 connections (${result.rps.toFixed(0)} req/s during the profiled run)\n`);
  console.log(summariseProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), repo));
}

await main();
// The servers are still running (the exit handler stops them); do not wait for them.
process.exit(0);
