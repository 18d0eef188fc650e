/**
 * `workers: 2`: two processes share the webhook port; the primary answers
 * probes (ready only when every worker is) and metrics (summed), replaces a
 * worker that dies without closing the port, and drains both on SIGTERM.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { getPlain, serve, ServeDir, until, waitReady, type ServeProcess } from '../../support/serve-process.js';

let dir: ServeDir;
beforeAll(async () => {
  dir = await ServeDir.create();
});
afterAll(() => dir.remove());

const review = (uid: string) => admissionReview({ uid, object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'a' }, spec: {} } });

/** The pid each worker slot reported when it started serving, latest last. */
const servingPids = (server: ServeProcess) =>
  server
    .logs()
    .filter((line) => String(line.msg).startsWith('serving 3 webhooks'))
    .map((line) => ({ worker: line.worker as number, pid: line.pid as number }));

describe('shaper-gen serve with workers: 2', () => {
  it('serves from two processes on one port, aggregates readiness and metrics, replaces a dead worker, drains on SIGTERM', async () => {
    const config = await dir.writeConfig({ extra: 'workers: 2' });
    const server = serve(['--config', config.file]);
    try {
      expect(await waitReady(config.health, server)).toBe('[+]shutdown ok\n[+]worker-1 ok\n[+]worker-2 ok\nreadyz check passed\n');
      const started = servingPids(server);
      expect(started.map((s) => s.worker).sort()).toEqual([1, 2]);
      expect(new Set([...started.map((s) => s.pid), server.child.pid]).size).toBe(3);

      // A new connection per request: the primary hands connections to the workers in turn.
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => dir.post(config.port, '/mutate-profile', review(`r-${i}`))));
      expect(answers.map((a) => [a.status, a.json.response.uid, a.json.response.allowed])).toEqual(answers.map((_, i) => [200, `r-${i}`, true]));
      const metrics = (await getPlain(config.metrics, '/metrics')).text;
      expect(metrics).toContain('shaper_webhook_requests_total{webhook="/mutate-profile",operation="CREATE",allowed="true",code="200"} 20');
      // Both workers serve the same certificate: the primary reports its expiry once, not the sum of theirs.
      const notAfter = new X509Certificate(readFileSync(path.join(dir.dir, 'tls.crt'))).validToDate.getTime() / 1000;
      expect(metrics.split('\n').filter((line) => line.startsWith('shaper_webhook_certificate_expiry_timestamp_seconds'))).toEqual([
        `shaper_webhook_certificate_expiry_timestamp_seconds ${notAfter}`,
      ]);

      const victim = started.find((s) => s.worker === 1)!;
      process.kill(victim.pid, 'SIGKILL');
      expect(await until(() => server.logs().some((line) => line.msg === 'worker 1 exited; starting another'), 10_000)).toBe(true);
      // The port stays open: the other worker answers while worker 1 is replaced.
      const during = await Promise.all(Array.from({ length: 5 }, (_, i) => dir.post(config.port, '/mutate-profile', review(`d-${i}`))));
      expect(during.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(await until(() => servingPids(server).filter((s) => s.worker === 1).length === 2, 20_000)).toBe(true);
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      expect(servingPids(server).at(-1)!.pid).not.toBe(victim.pid);

      server.child.kill('SIGTERM');
      expect(await until(async () => (await getPlain(config.health, '/readyz').catch(() => ({ status: 0 }))).status === 503, 2_000)).toBe(true);
      expect(await server.exited).toBe(0);
      const stopped = server.logs().filter((line) => line.msg === 'stopped');
      expect(stopped.map((line) => line.worker ?? 'primary').sort()).toEqual([1, 2, 'primary']);
      for (const { pid } of servingPids(server)) expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      server.child.kill('SIGKILL');
      for (const { pid } of servingPids(server)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
  }, 60_000);

  it('stops with one line when a worker cannot start, instead of restarting it forever', async () => {
    const config = await dir.writeConfig({ extra: 'workers: 2', handlers: ['dist/nope.js'] });
    const server = serve(['--config', config.file]);
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/^shaper-gen serve: worker [12] exited \(code 1\) before it served; see its output above$/m);
    expect(server.output()).toMatch(/^shaper-gen serve: handlers module dist\/nope\.js: no such file/m);
  }, 30_000);
});
