/**
 * Express's router on node:http versus `serve`'s own path: node bench/run.ts
 * admission-express. The same admission endpoints registered with
 * `app.post(path, …)` (express-routed-server.ts) beside `shaper-gen serve`,
 * which reads review requests on the TLS socket and finds their endpoint in a
 * Map, never reaching node:http or Express (runtime/server/review-connection.ts);
 * 32 connections, the floor alongside, same process layout as the admission
 * benchmark (servers.ts).
 */
import { defineBenchmark } from '../support/benchmark.ts';
import type { WrkResult } from '../support/wrk.ts';
import { createServers, median, NODE_FLAGS_OPTION, wrk } from './servers.ts';

const CONNECTIONS = 32;

export default defineBenchmark({
  options: {
    rounds: { kind: 'number', default: 3, description: 'rounds; each figure is the median over them' },
    duration: { kind: 'number', default: 3, description: 'seconds of wrk per cell' },
    ...NODE_FLAGS_OPTION,
  },
  async main({ rounds, duration, 'node-flags': nodeFlags }, report) {
    const servers = createServers(nodeFlags);
    const { bodies } = servers;
    const floor = await servers.startFloor();
    const fast = await servers.startFramework();
    const viaExpress = await servers.startExpressRouted();
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
      for (const cell of cells) runs.set(cell.name, [...(runs.get(cell.name) ?? []), wrk(cell.port, cell.path, cell.body, CONNECTIONS, duration)]);
    }
    report.line(`${CONNECTIONS} connections, ${rounds} rounds × ${duration} s, medians; the floor and both servers on CPU 0, wrk on CPU 1.`);
    report.line();
    report.table(
      ['workload', 'req/s', '× floor', 'p99 ms'],
      cells.map((cell) => {
        const floorName = cell.body === bodies.profile ? 'floor (profile body)' : 'floor (assignment body)';
        const own = runs.get(cell.name)!;
        const ratio = median(own.map((r, i) => r.rps / runs.get(floorName)![i]!.rps));
        return [cell.name, median(own.map((r) => r.rps)).toFixed(0), ratio.toFixed(2), median(own.map((r) => r.p99Ms)).toFixed(2)];
      }),
    );
  },
});
