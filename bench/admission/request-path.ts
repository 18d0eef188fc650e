/**
 * The admission request path in process (node bench/run.ts admission-path):
 * each step's CPU time for `serve` and for the hand-written server, from the
 * body as the socket delivers it to the bytes of the response, without
 * sockets or TLS (request-path-steps.ts). On a shared machine this moves far
 * less than req/s: it is the figure to decide a change to the hot path by.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { defineBenchmark } from '../support/benchmark.ts';
import { NODE_FLAGS_OPTION, REPO, createServers } from './servers.ts';
import type { PathCosts } from './request-path-steps.ts';

export default defineBenchmark({
  options: {
    iterations: { kind: 'number', default: 20_000, description: 'reviews per chain and round' },
    rounds: { kind: 'number', default: 8, description: 'rounds per chain; the best counts' },
    ...NODE_FLAGS_OPTION,
  },
  async main(options, report) {
    const { nodeFlags } = createServers(options['node-flags']);
    const script = path.join(REPO, 'dist/bench/admission/request-path-steps.js');
    const run = spawnSync('taskset', ['-c', '0', process.execPath, ...nodeFlags, script, String(options.iterations), String(options.rounds)], { cwd: REPO, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`request-path-steps.js failed (${run.status}): ${run.stderr}`);
    const results = JSON.parse(run.stdout) as PathCosts[];
    report.line(
      `CPU µs per review in one process on CPU 0 (node ${nodeFlags.join(' ')}), the benchmark's 1.8 KB Profile body, best of ${options.rounds} rounds of ${options.iterations}; each step's figure is its chain's less the chain before it.`,
    );
    for (const { path: urlPath, serve, hand } of results) {
      report.line();
      const [serveUs, handUs] = [serve.at(-1)!.chainUs, hand.at(-1)!.chainUs];
      report.line(
        `\`${urlPath}\`: serve ${serveUs.toFixed(2)} µs, hand-written ${handUs.toFixed(2)} µs: serve answers ${(handUs / serveUs).toFixed(2)}× the hand-written server's reviews per CPU-second.`,
      );
      report.line();
      const rows = Math.max(serve.length, hand.length);
      report.table(
        ['serve step', 'µs', 'hand-written step', 'µs'],
        Array.from({ length: rows }, (_, i) => [serve[i]?.step ?? '', serve[i] ? serve[i].stepUs.toFixed(2) : '', hand[i]?.step ?? '', hand[i] ? hand[i].stepUs.toFixed(2) : '']),
      );
    }
  },
});
