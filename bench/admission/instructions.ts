/**
 * Instructions per admission request (node bench/run.ts admission-instructions):
 * `serve` and the hand-written server each run under valgrind's callgrind,
 * pinned to CPU 0, and answer a fixed number of requests after a warm-up;
 * callgrind counts the instructions every thread of the server executed for
 * them. Unlike req/s and CPU time, which swing by ±0.15 between runs on a
 * shared machine, the JavaScript thread's count moves by about 1 %: it is the
 * figure to tell whether a change to the request path helps. The other
 * threads' count moves by a third, with when V8's compilers happen to run
 * under valgrind. It counts work, not its cost: cache misses and how fast
 * each instruction runs are left out, so the wall-clock ratios of `admission`
 * stay the goal.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { defineBenchmark } from '../support/benchmark.ts';
import { NODE_FLAGS_OPTION, createServers, type Server, type Servers } from './servers.ts';

const PATHS = ['/mutate-profile', '/validate-profile', '/validate-allow-all'];
const CONNECTIONS = 32;

interface Count {
  /** Instructions of the thread that runs JavaScript. */
  main: number;
  /** Of every other thread: V8's (garbage collection, compilers) and libuv's. */
  others: number;
}

export default defineBenchmark({
  options: {
    requests: { kind: 'number', default: 3000, description: 'requests counted per server and path' },
    'warm-up': { kind: 'number', default: 2000, description: 'requests answered first, not counted (the JIT compilers settle)' },
    paths: { kind: 'string', default: PATHS.join(','), description: 'comma-separated webhook paths' },
    ...NODE_FLAGS_OPTION,
  },
  async main(options, report) {
    const outputs = mkdtempSync(path.join(os.tmpdir(), 'shaper-callgrind-'));
    const wrapper = ['valgrind', '--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${outputs}/%p.out`];
    const servers = createServers(options['node-flags'], { wrapper, readySeconds: 300 });
    const body = readFileSync(servers.bodies.profile);
    report.line(
      `Instructions per request counted by callgrind (valgrind) over ${options.requests} requests after ${options['warm-up']}, ${CONNECTIONS} keep-alive connections, the benchmark's ${body.length}-byte Profile body; each server pinned to CPU 0 (node ${servers.nodeFlags.join(' ')}).`,
    );
    report.line();
    const rows: (string | number)[][] = [];
    for (const urlPath of options.paths.split(',').filter(Boolean)) {
      const hand = await count(servers, 'hand', urlPath, body, options, outputs);
      const serve = await count(servers, 'serve', urlPath, body, options, outputs);
      const total = (c: Count) => c.main + c.others;
      for (const [name, c] of [
        ['hand-written', hand],
        ['serve', serve],
      ] as const) {
        rows.push([`\`${urlPath}\``, name, thousands(c.main), thousands(c.others), thousands(total(c)), (total(c) / total(hand)).toFixed(2)]);
      }
    }
    report.table(['path', 'server', 'JS thread', 'other threads', 'total', '× hand-written'], rows);
  },
});

async function count(servers: Servers, which: 'hand' | 'serve', urlPath: string, body: Buffer, options: { requests: number; 'warm-up': number }, outputs: string): Promise<Count> {
  const server = which === 'hand' ? await servers.startHandWritten() : await servers.startFramework();
  try {
    await send(server.port, urlPath, body, options['warm-up']);
    callgrindControl('-z', server);
    await send(server.port, urlPath, body, options.requests);
    callgrindControl('-d', server);
    const perThread = dumpedThreads(outputs, server.pid);
    const [main = 0, ...others] = perThread;
    return { main: main / options.requests, others: others.reduce((sum, n) => sum + n, 0) / options.requests };
  } finally {
    server.child.kill('SIGKILL');
  }
}

function callgrindControl(command: '-z' | '-d', server: Server): void {
  const run = spawnSync('callgrind_control', [command, String(server.pid)], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`callgrind_control ${command} ${server.pid} failed: ${run.stderr || run.stdout}`);
}

/** The instructions of each thread in the first dump of `pid`, main thread first (callgrind writes <pid>.out.1-NN). */
function dumpedThreads(outputs: string, pid: number): number[] {
  const prefix = `${pid}.out.1-`;
  const files = readdirSync(outputs)
    .filter((name) => name.startsWith(prefix))
    .sort();
  if (files.length === 0) throw new Error(`callgrind wrote no dump for ${pid} in ${outputs}`);
  return files.map((name) => {
    const summary = /^summary: (\d+)/m.exec(readFileSync(path.join(outputs, name), 'utf8'));
    return summary ? Number(summary[1]) : 0;
  });
}

/** `total` POSTs of `body` to `urlPath`, at most CONNECTIONS at a time on keep-alive connections; rejects on any answer but 200. */
async function send(port: number, urlPath: string, body: Buffer, total: number): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONNECTIONS, rejectUnauthorized: false });
  let started = 0;
  const next = (): Promise<void> => {
    if (started >= total) return Promise.resolve();
    started++;
    return new Promise<void>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: urlPath, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${urlPath} answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    }).then(next);
  };
  try {
    await Promise.all(Array.from({ length: Math.min(CONNECTIONS, total) }, next));
  } finally {
    agent.destroy();
  }
}

function thousands(n: number): string {
  return `${(n / 1000).toFixed(1)} k`;
}
