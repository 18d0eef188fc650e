/**
 * Where the time goes (node bench/run.ts admission-profile): `shaper-gen
 * serve` under --cpu-prof with a 32-connection load on one webhook, then its
 * self time grouped by module and the top functions (profile-summary.ts).
 */
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineBenchmark } from '../support/benchmark.ts';
import { summariseProfile } from './profile-summary.ts';
import { createServers, NODE_FLAGS_OPTION, REPO, wrk, type BodyName } from './servers.ts';

const BODIES: readonly BodyName[] = ['profile', 'assignment', 'large'];

export default defineBenchmark({
  options: {
    path: { kind: 'string', default: '/validate-assignment', description: 'the webhook to load' },
    body: { kind: 'string', description: 'profile, assignment or large (default: assignment for /validate-assignment, else profile)' },
    duration: { kind: 'number', default: 10, description: 'seconds of the profiled load (after 2 s of warm-up)' },
    ...NODE_FLAGS_OPTION,
  },
  async main(options, report) {
    const bodyName = (options.body ?? (options.path.endsWith('assignment') ? 'assignment' : 'profile')) as BodyName;
    if (!BODIES.includes(bodyName)) throw new Error(`bench: --body ${bodyName}: expected one of ${BODIES.join(', ')}`);
    const servers = createServers(options['node-flags']);
    const dir = path.join(servers.work, 'cpu-prof');
    const framework = await servers.startFramework(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const body = servers.bodies[bodyName];
    wrk(framework.port, options.path, body, 32, 2);
    const result = wrk(framework.port, options.path, body, 32, options.duration);
    framework.child.kill('SIGTERM');
    await once(framework.child, 'exit');
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
    report.line(
      `CPU profile of shaper-gen serve, \`${options.path}\` with the ${bodyName} body at 32 connections for ${options.duration} s (${result.rps.toFixed(0)} req/s during the profiled run).`,
    );
    report.line();
    report.line(summariseProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), REPO));
  },
});
