/**
 * Fault figures for `shaper-gen serve` (node bench/run.ts faults; the built
 * CLI, the sample's webhooks plus bench/faults/handlers.ts), on loopback
 * only, every phase bounded:
 *
 *   1. the whole malformed-input corpus (support/faults/corpus.ts, ~11,000
 *      bodies; --sample n keeps every n-th of each class): HTTP status per
 *      class, crashes, unparseable answers, transport errors, and the Go
 *      oracle's verdict on every answer;
 *   2. slow and idle clients: how long the server lets each hold a socket;
 *   3. a handler that blocks the event loop for 2 s: what other requests
 *      and the probes see meanwhile.
 *
 * A server that dies fails the run. Also writes bench/results/faults.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { baseReviews, faultCorpus } from '../../support/faults/corpus.ts';
import { sendAll } from '../../support/faults/send.ts';
import { oracleCases, tally } from '../../support/faults/tally.ts';
import { freePort } from '../../support/free-port.ts';
import { judgeResponses } from '../../support/oracle.ts';
import { defineBenchmark } from '../support/benchmark.ts';
import { chartNodeOptions, chartProcessEnv } from '../support/chart-node-options.ts';
import type { Report } from '../support/report.ts';
import { writeSelfSignedCertificate } from '../support/self-signed-certificate.ts';

const repo = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

function get(port: number, urlPath: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      })
      .on('error', () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

const rssMiB = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

async function startServer(work: string): Promise<{ port: number; health: number; child: ChildProcess; exited: () => string | undefined }> {
  const certDir = path.join(work, 'certs');
  mkdirSync(certDir);
  writeSelfSignedCertificate(certDir);
  const [port, health] = [await freePort(), await freePort()];
  const config = path.join(work, 'server.yaml');
  writeFileSync(
    config,
    `apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [dist/bench/faults/offline-sample.js, dist/bench/faults/handlers.js]
webhook: { bindAddress: 127.0.0.1, port: ${port}, certDir: ${certDir} }
health: { bindAddress: 127.0.0.1, port: ${health} }
metrics: { port: 0 }
shutdown: { drainSeconds: 0, timeoutSeconds: 5 }
log: { level: fatal }
`,
  );
  // The chart's own Node flags, so the figures describe the server as deployed.
  const child = spawn(process.execPath, [...chartNodeOptions(repo), path.join(repo, 'dist/bin/shaper-gen.js'), 'serve', '--config', config], {
    cwd: repo,
    env: chartProcessEnv(repo),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  let exit: string | undefined;
  child.on('exit', (code, signal) => void (exit = `exited (code ${code}, signal ${signal}): ${stderr.slice(-2000)}`));
  for (const until = Date.now() + 20_000; ;) {
    if ((await get(health, '/readyz')).status === 200) break;
    if (exit || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`shaper-gen serve did not become ready: ${exit ?? 'timeout'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, health, child, exited: () => exit };
}

/** Phase 1: the corpus, the oracle, the tally. */
async function malformedInput(port: number, pid: number, exited: () => string | undefined, { concurrency, sample }: { concurrency: number; sample: number }) {
  const cases = faultCorpus(sample > 1 ? { sample } : {});
  const rssBefore = rssMiB(pid, 'VmRSS');
  const started = performance.now();
  const answers = await sendAll({ port }, cases, concurrency);
  const seconds = (performance.now() - started) / 1000;
  const result = tally(cases, answers, judgeResponses(oracleCases(cases, answers)));
  return { ...result, seconds, crashed: exited() ?? null, rssBeforeMiB: rssBefore, peakRssMiB: rssMiB(pid, 'VmHWM') };
}

interface Hold {
  client: string;
  heldMs: number | null;
  note: string;
}

/** How long the server keeps a socket that a client opens and then starves; null when still open at the hold limit. */
function hold(holdLimitMs: number, client: string, open: () => net.Socket, feed?: (socket: net.Socket) => NodeJS.Timeout): Promise<Hold> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = open();
    let drip: NodeJS.Timeout | undefined;
    const limit = setTimeout(() => finish(null, `still open after ${holdLimitMs / 1000} s`), holdLimitMs);
    const finish = (heldMs: number | null, note: string) => {
      clearTimeout(limit);
      clearInterval(drip);
      socket.destroy();
      resolve({ client, heldMs, note });
    };
    socket.on('secureConnect', () => void (drip = feed?.(socket)));
    if (!(socket instanceof tls.TLSSocket)) socket.on('connect', () => void (drip = feed?.(socket)));
    socket.resume(); // read (and drop) whatever the server answers, so that its close reaches us
    socket.on('close', () => finish(performance.now() - started, 'closed by the server'));
    socket.on('error', () => undefined);
  });
}

async function slowAndIdleClients(port: number, holdLimitMs: number): Promise<Hold[]> {
  const secure = () => tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false });
  const header = 'POST /validate-profile HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n';
  const every = (ms: number, write: () => void) => setInterval(write, ms);
  const review = JSON.stringify(baseReviews()[0]!.review);
  return Promise.all([
    hold(holdLimitMs, 'idle TCP, no TLS handshake', () => net.connect(port, '127.0.0.1')),
    hold(holdLimitMs, 'idle TLS, no request', secure),
    hold(holdLimitMs, 'slow headers (1 header line per second)', secure, (socket) => {
      socket.write(header);
      let n = 0;
      return every(1000, () => socket.write(`X-Slow-${n++}: y\r\n`));
    }),
    hold(holdLimitMs, 'slow body (1 byte per second)', secure, (socket) => {
      socket.write(`${header}Content-Length: 100000\r\n\r\n`);
      return every(1000, () => socket.write('{'));
    }),
    hold(holdLimitMs, 'idle keep-alive after one exchange', secure, (socket) => {
      socket.write(`${header}Content-Length: ${Buffer.byteLength(review)}\r\n\r\n${review}`);
      return every(3_600_000, () => undefined);
    }),
  ]);
}

/** Phase 3: one request whose handler blocks for 2 s, with probes and other admission requests every 100 ms meanwhile. */
async function blockingHandler(port: number, health: number) {
  const blocker = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'block',
      kind: { group: 'example.io', version: 'v1', kind: 'Blocker' },
      resource: { group: 'example.io', version: 'v1', resource: 'blockers' },
      operation: 'CREATE',
      userInfo: {},
      object: { metadata: { name: 'b' } },
    },
  });
  const [valid] = faultCorpus({ sample: 100_000 });
  const blocked = sendAll({ port }, [{ kind: 'block', path: '/validate-blocking', body: Buffer.from(blocker), headers: { 'Content-Type': 'application/json' }, uid: 'block' }], 1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const samples: Record<string, Promise<number>[]> = { '/healthz': [], '/readyz': [], '/validate-profile': [] };
  for (let i = 0; i < 25; i++) {
    samples['/healthz']!.push(get(health, '/healthz').then((r) => r.ms));
    samples['/readyz']!.push(get(health, '/readyz').then((r) => r.ms));
    const started = performance.now();
    samples['/validate-profile']!.push(sendAll({ port }, [valid!], 1).then(() => performance.now() - started));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await blocked;
  const figures: Record<string, { requests: number; maxMs: number; over1s: number }> = {};
  for (const [name, list] of Object.entries(samples)) {
    const ms = await Promise.all(list);
    figures[name] = { requests: ms.length, maxMs: Math.round(Math.max(...ms)), over1s: ms.filter((m) => m > 1000).length };
  }
  return figures;
}

type MalformedInput = Awaited<ReturnType<typeof malformedInput>>;
type Blocking = Awaited<ReturnType<typeof blockingHandler>>;

function reportFaults(report: Report, input: MalformedInput, holds: readonly Hold[], blocking: Blocking, concurrency: number): void {
  report.line(
    `## Malformed input\n\n${input.cases} requests in ${input.seconds.toFixed(1)} s, ${concurrency} at a time; RSS ${input.rssBeforeMiB.toFixed(0)} MiB before, peak ${input.peakRssMiB.toFixed(0)} MiB.`,
  );
  report.line();
  const statuses = [...new Set(Object.values(input.statuses).flatMap((byStatus) => Object.keys(byStatus)))].sort();
  const total = (status: string) => Object.values(input.statuses).reduce((sum, byStatus) => sum + (byStatus[status] ?? 0), 0);
  report.table(['class', ...statuses], [...Object.entries(input.statuses).map(([kind, byStatus]) => [kind, ...statuses.map((s) => byStatus[s] ?? '')]), ['total', ...statuses.map(total)]]);
  report.line();
  report.line(
    `Crashes: ${input.crashed ? 1 : 0}; transport errors: ${input.transportErrors.length}; unparseable answers: ${input.unparseable.length}; ` +
      `answers the API machinery refuses: ${input.rejectedByOracle.length}; wrong apiVersion: ${input.wrongApiVersion.length}; foreign uid: ${input.foreignUid.length}.`,
  );
  for (const problem of [...input.unparseable, ...input.rejectedByOracle, ...input.transportErrors].slice(0, 10)) report.line(`- \`${JSON.stringify(problem)}\``);
  report.line();
  report.line('## Slow and idle clients: how long the server keeps the socket');
  report.line();
  report.table(
    ['client', 'held', ''],
    holds.map((h) => [h.client, h.heldMs === null ? '—' : `${(h.heldMs / 1000).toFixed(1)} s`, h.note]),
  );
  report.line();
  report.line('## A handler blocking the event loop for 2 s: what others saw meanwhile (every 100 ms for 2.5 s)');
  report.line();
  report.table(
    ['endpoint', 'requests', 'slowest ms', "over 1 s (the probes' timeout)"],
    Object.entries(blocking).map(([name, f]) => [`\`${name}\``, f.requests, f.maxMs, f.over1s]),
  );
  report.line();
}

export default defineBenchmark({
  options: {
    concurrency: { kind: 'number', default: 8, description: 'malformed requests in flight at once' },
    sample: { kind: 'number', default: 1, description: 'send every n-th case of each class of the corpus (1: all of it)' },
    'hold-limit': { kind: 'number', default: 150, description: 'seconds a slow or idle client waits for the server to close its socket' },
  },
  async main({ concurrency, sample, 'hold-limit': holdLimitSeconds }, report) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'shaper-faults-'));
    const servers: ChildProcess[] = [];
    process.on('exit', () => {
      for (const server of servers) server.kill('SIGKILL');
      rmSync(work, { recursive: true, force: true });
    });
    const { port, health, child, exited } = await startServer(work);
    servers.push(child);
    const input = await malformedInput(port, child.pid!, exited, { concurrency, sample });
    const holds = await slowAndIdleClients(port, holdLimitSeconds * 1000);
    const blocking = await blockingHandler(port, health);
    const alive = exited() === undefined && (await get(health, '/healthz')).status === 200;
    reportFaults(report, input, holds, blocking, concurrency);
    report.line(`Server alive at the end: ${alive}.`);
    mkdirSync(path.join(repo, 'bench/results'), { recursive: true });
    writeFileSync(
      path.join(repo, 'bench/results/faults.json'),
      JSON.stringify(
        { when: new Date().toISOString(), input: { ...input, unparseable: input.unparseable.length, rejectedByOracle: input.rejectedByOracle.length }, holds, blocking, alive },
        null,
        2,
      ),
    );
    if (!alive || input.crashed) process.exitCode = 1;
  },
});
