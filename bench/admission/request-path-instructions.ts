/**
 * Instructions per review of the request path in process (node bench/run.ts
 * admission-path-instructions): the whole chain of request-path-steps.ts, from
 * the body as the socket delivers it to the bytes of the response, for `serve`
 * and for the hand-written server, counted by callgrind. Without sockets, TLS
 * and Node's HTTP code, the count is mostly the code this project controls:
 * a change to the admission core (the handler's view, the diff, the patch) is
 * a larger share of it than of a whole request's, in half the time of
 * `admission-instructions`. Counts move by 1 to 3 % between runs, with when
 * the compilers finish. Beside each path's totals, the functions whose
 * instructions differ most.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { defineBenchmark } from '../support/benchmark.ts';
import { callgrindControl, callgrindWrapper, dumpedThreads, dumpTotal, instructionsByFunction, largestDifferences, perThousand } from './callgrind-functions.ts';
import { NODE_FLAGS_OPTION, REPO, createServers } from './servers.ts';

const PATHS = ['/mutate-profile', '/validate-profile', '/validate-allow-all'];

interface Count {
  /** Instructions per review on the thread that runs JavaScript. */
  readonly perReview: number;
  /** The same, by function. */
  readonly functions: Map<string, number>;
}

export default defineBenchmark({
  options: {
    reviews: { kind: 'number', default: 10_000, description: 'reviews counted per side and path' },
    'warm-up': { kind: 'number', default: 10_000, description: 'reviews run first, not counted (the JIT compilers settle)' },
    paths: { kind: 'string', default: PATHS.join(','), description: 'comma-separated webhook paths' },
    functions: { kind: 'number', default: 15, description: 'functions listed per path, those whose instructions differ most' },
    ...NODE_FLAGS_OPTION,
  },
  async main(options, report) {
    const { nodeFlags } = createServers(options['node-flags']);
    const outputs = mkdtempSync(path.join(os.tmpdir(), 'shaper-callgrind-path-'));
    try {
      report.line(
        `Instructions per review counted by callgrind (valgrind) on the JavaScript thread, ${options.reviews} reviews after ${options['warm-up']}, in one process pinned to CPU 0 (node ${nodeFlags.join(' ')}), the benchmark's Profile body: the chains of request-path-steps.ts, body to response bytes, without sockets or TLS.`,
      );
      report.line();
      const rows: string[][] = [];
      const differences: [string, Count, Count][] = [];
      for (const urlPath of options.paths.split(',').filter(Boolean)) {
        const hand = await count(urlPath, 'hand', nodeFlags, options, outputs);
        const serve = await count(urlPath, 'serve', nodeFlags, options, outputs);
        rows.push([`\`${urlPath}\``, perThousand(hand.perReview), perThousand(serve.perReview), (serve.perReview / hand.perReview).toFixed(2), perThousand(serve.perReview - hand.perReview)]);
        differences.push([urlPath, hand, serve]);
      }
      report.table(['path', 'hand-written', 'serve', '×', 'serve − hand-written'], rows);
      for (const [urlPath, hand, serve] of differences) {
        report.line();
        report.line(`\`${urlPath}\`: instructions per review by function, where the two differ most.`);
        report.line();
        report.table(['function', 'hand-written', 'serve', 'difference'], largestDifferences(hand.functions, serve.functions, options.functions));
      }
    } finally {
      rmSync(outputs, { recursive: true, force: true });
    }
  },
});

/** One side's chain for `urlPath` under callgrind: zeroed after the warm-up, dumped after the counted reviews. */
async function count(urlPath: string, side: 'serve' | 'hand', nodeFlags: readonly string[], options: { reviews: number; 'warm-up': number }, outputs: string): Promise<Count> {
  const script = path.join(REPO, 'dist/bench/admission/request-path-steps.js');
  const args = [...callgrindWrapper(outputs), process.execPath, ...nodeFlags, '--perf-basic-prof', script, '--count', urlPath, side, String(options['warm-up']), String(options.reviews)];
  const child = spawn('taskset', ['-c', '0', ...args], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const expect = async (word: string) => {
    const line = await lines.next();
    if (line.done || line.value !== word)
      throw new Error(`request-path-steps.js ${urlPath} ${side}: expected "${word}", got ${line.done ? 'the end' : JSON.stringify(line.value)}\n${stderr.slice(-2000)}`);
  };
  const perfMap = `/tmp/perf-${child.pid}.map`;
  try {
    // valgrind execs node in the same process, so the pid callgrind_control takes is the child's.
    await expect('warm');
    callgrindControl('-z', child.pid!);
    child.stdin.write('go\n');
    await expect('done');
    callgrindControl('-d', child.pid!);
    child.stdin.end('end\n');
    await exited;
    const [mainDump] = dumpedThreads(outputs, child.pid!);
    const functions = new Map<string, number>();
    for (const [name, instructions] of instructionsByFunction(mainDump!, perfMap, REPO)) functions.set(name, instructions / options.reviews);
    return { perReview: dumpTotal(mainDump!) / options.reviews, functions };
  } finally {
    child.kill('SIGKILL');
    rmSync(perfMap, { force: true });
  }
}
