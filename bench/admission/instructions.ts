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
 * stay the goal. Beside the totals, the functions whose instructions differ
 * most between the two servers (callgrind-functions.ts); and the
 * hand-written server once more after other work in its process
 * (hand-written-busy-server.ts), for what sharing Node's code costs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { defineBenchmark } from '../support/benchmark.ts';
import { callgrindControl, callgrindWrapper, dumpedThreads, dumpTotal, instructionsByFunction, largestDifferences, perThousand } from './callgrind-functions.ts';
import { NODE_FLAGS_OPTION, REPO, createServers, type Server } from './servers.ts';

const PATHS = ['/mutate-profile', '/validate-profile', '/validate-allow-all'];
const CONNECTIONS = 32;

interface Count {
  /** Instructions of the thread that runs JavaScript. */
  main: number;
  /** Of every other thread: V8's (garbage collection, compilers) and libuv's. */
  others: number;
  /** The JavaScript thread's, by function, per request. */
  functions: Map<string, number>;
}

export default defineBenchmark({
  options: {
    requests: { kind: 'number', default: 3000, description: 'requests counted per server and path' },
    'warm-up': { kind: 'number', default: 2000, description: 'requests answered first, not counted (the JIT compilers settle)' },
    paths: { kind: 'string', default: PATHS.join(','), description: 'comma-separated webhook paths' },
    functions: { kind: 'number', default: 20, description: 'functions listed per path, those whose instructions differ most between the servers' },
    ...NODE_FLAGS_OPTION,
  },
  async main(options, report) {
    const outputs = mkdtempSync(path.join(os.tmpdir(), 'shaper-callgrind-'));
    const wrapper = callgrindWrapper(outputs);
    const servers = createServers(options['node-flags'], { wrapper, readySeconds: 300, extraNodeFlags: ['--perf-basic-prof'] });
    const body = readFileSync(servers.bodies.profile);
    report.line(
      `Instructions per request counted by callgrind (valgrind) over ${options.requests} requests after ${options['warm-up']}, ${CONNECTIONS} keep-alive connections, the benchmark's ${body.length}-byte Profile body; each server pinned to CPU 0 (node ${servers.nodeFlags.join(' ')}).`,
    );
    report.line();
    const rows: (string | number)[][] = [];
    const differences: [string, Count, Count][] = [];
    for (const urlPath of options.paths.split(',').filter(Boolean)) {
      const hand = await count(() => servers.startHandWritten(), urlPath, body, options, outputs);
      const busy = await count(() => servers.startHandWrittenBusy(), urlPath, body, options, outputs);
      const serve = await count(() => servers.startFramework(), urlPath, body, options, outputs);
      differences.push([urlPath, hand, serve]);
      const total = (c: Count) => c.main + c.others;
      for (const [name, c] of [
        ['hand-written', hand],
        ['hand-written, after other work', busy],
        ['serve', serve],
      ] as const) {
        rows.push([`\`${urlPath}\``, name, perThousand(c.main), perThousand(c.others), perThousand(total(c)), (total(c) / total(hand)).toFixed(2)]);
      }
    }
    report.table(['path', 'server', 'JS thread', 'other threads', 'total', '× hand-written'], rows);
    for (const [urlPath, hand, serve] of differences) {
      report.line();
      report.line(`\`${urlPath}\`: the JavaScript thread's instructions per request by function (JavaScript named from node's --perf-basic-prof map), where the two servers differ most.`);
      report.line();
      report.table(['function', 'hand-written', 'serve', 'difference'], largestDifferences(hand.functions, serve.functions, options.functions));
    }
  },
});

async function count(start: () => Promise<Server>, urlPath: string, body: Buffer, options: { requests: number; 'warm-up': number }, outputs: string): Promise<Count> {
  const server = await start();
  try {
    await send(server.port, urlPath, body, options['warm-up']);
    callgrindControl('-z', server.pid);
    await send(server.port, urlPath, body, options.requests);
    callgrindControl('-d', server.pid);
    const [mainDump, ...otherDumps] = dumpedThreads(outputs, server.pid);
    const functions = new Map<string, number>();
    for (const [name, instructions] of instructionsByFunction(mainDump!, perfMap(server), REPO)) functions.set(name, instructions / options.requests);
    return { main: dumpTotal(mainDump!) / options.requests, others: otherDumps.reduce((sum, dump) => sum + dumpTotal(dump), 0) / options.requests, functions };
  } finally {
    server.child.kill('SIGKILL');
    rmSync(perfMap(server), { force: true });
  }
}

/** Where node's --perf-basic-prof writes the names of the code it generates (V8's default directory, whatever TMPDIR says). */
function perfMap(server: Server): string {
  return `/tmp/perf-${server.pid}.map`;
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
