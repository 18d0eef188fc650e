/**
 * Probes while the main thread is busy: the health port is served from the main
 * thread, so a probe that arrives during a review is answered once the review
 * lets the thread run; liveness holds through a review that takes seconds of
 * CPU, readiness says the thread was busy, and liveness fails only once the
 * thread has been stuck for `health.stallSeconds`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { builtEntry } from '../../../support/built-package.js';
import { getPlain, serve, ServeDir, sleep, until, waitReady, type ServeProcess } from '../../support/serve-process.js';

let running: { server: ServeProcess; dir: ServeDir } | undefined;
afterEach(async () => {
  running?.server.child.kill('SIGKILL');
  await running?.server.exited;
  running?.dir.remove();
  running = undefined;
});

/** A validator that spins the CPU for `spec.spinMs` without yielding. */
function writeSpinningHandlers(dir: string): string {
  const runtime = builtEntry();
  const file = path.join(dir, 'spinning.mjs');
  writeFileSync(
    file,
    `import { Webhook } from ${JSON.stringify(runtime)};
export class SpinningValidator {
  validateCreate(obj) {
    const end = Date.now() + obj.spec.spinMs;
    while (Date.now() < end);
  }
}
Webhook({ path: '/validate-spin', mutating: false, timeoutSeconds: 30, rules: [{ groups: ['example.io'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE'] }] })(SpinningValidator);
export const webhooks = [SpinningValidator];
`,
  );
  return file;
}

async function start(stallSeconds: number): Promise<{ server: ServeProcess; dir: ServeDir; port: number; health: number }> {
  const dir = await ServeDir.create();
  const handlers = writeSpinningHandlers(dir.dir);
  const config = await dir.writeConfig({ handlers: [handlers], expectedPaths: ['/validate-spin'], healthExtra: `stallSeconds: ${stallSeconds}` });
  const server = serve(['--config', config.file]);
  running = { server, dir };
  expect(await waitReady(config.health, server)).toContain('readyz check passed');
  return { server, dir, port: config.port, health: config.health };
}

const spin = (ms: number) => admissionReview({ uid: `spin-${ms}`, object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'a' }, spec: { spinMs: ms } } });

/** Timed GET of a probe path on the health port. */
async function probe(port: number, urlPath: string): Promise<{ status: number; text: string; ms: number }> {
  const started = Date.now();
  const res = await getPlain(port, urlPath);
  return { status: res.status, text: res.text, ms: Date.now() - started };
}

describe('probes while the main thread is busy', () => {
  it('keeps /healthz passing through a 3 s review, and reports /readyz unready for the probes that waited for it', async () => {
    const { dir, port, health } = await start(20);
    const answer = dir.post(port, '/validate-spin', spin(3000));
    await sleep(500);
    const [live, ready] = await Promise.all([probe(health, '/healthz'), probe(health, '/readyz')]);
    expect([live.status, live.text]).toEqual([200, 'ok\n']);
    expect(ready.status).toBe(503);
    expect(ready.text).toMatch(/^\[-\]event-loop failed: the main thread has not run for \d+\.\d s\nreadyz check failed\n$/);
    const res = await answer;
    expect([res.status, res.json.response]).toEqual([200, { uid: 'spin-3000', allowed: true }]);
    // The next heartbeat (every 250 ms) brings readiness back.
    expect(await until(async () => (await probe(health, '/readyz')).status === 200, 1000)).toBe(true);
    expect(await probe(health, '/readyz')).toMatchObject({ status: 200, text: 'ok\n' });
  }, 30_000);

  it('fails /healthz, naming how long the thread has been stuck, once it passes stallSeconds', async () => {
    const { dir, port, health, server } = await start(1);
    const answer = dir.post(port, '/validate-spin', spin(3000));
    await sleep(1800);
    const live = await probe(health, '/healthz?verbose');
    expect(live.status).toBe(500);
    expect(live.text).toMatch(/^\[\+\]ping ok\n\[-\]event-loop failed: the main thread has not run for \d+\.\d s\nhealthz check failed\n$/);
    expect((await answer).status).toBe(200);
    // The next heartbeat (every 250 ms) brings liveness back.
    expect(await until(async () => (await probe(health, '/healthz')).status === 200, 1000)).toBe(true);
    expect(await probe(health, '/healthz?verbose')).toMatchObject({ status: 200, text: '[+]ping ok\n[+]event-loop ok\nhealthz check passed\n' });
    expect(server.child.exitCode).toBeNull();
  }, 30_000);

  it('answers 404 for other paths on the health port', async () => {
    const { health } = await start(20);
    expect(await probe(health, '/nope')).toMatchObject({ status: 404, text: 'no probe at /nope\n' });
  }, 30_000);
});
