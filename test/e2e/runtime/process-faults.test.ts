/**
 * Faults outside any request, in the built `shaper-gen serve`: a handler's
 * detached rejected promise and a throwing timer callback.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { getPlain, serve, ServeDir, until, waitReady, type ServeProcess } from '../../support/serve-process.js';

const handlers = 'test/fixtures/runtime/process-fault-handlers.ts';
const expectedPaths = ['/validate-process-fault'];

let dir: ServeDir;
beforeAll(async () => {
  dir = await ServeDir.create();
});
afterAll(() => dir.remove());

const fault = (spec: Record<string, string>) => admissionReview({ object: { apiVersion: 'example.io/v1', kind: 'Fault', metadata: { name: 'f', namespace: 'a' }, spec } });

const logsWith = (server: ServeProcess, msg: string) => server.logs().filter((line) => line.msg === msg);

describe('faults outside a request', () => {
  it('logs and counts a rejected promise a handler did not await, and serves on', async () => {
    const config = await dir.writeConfig({ handlers: [handlers], expectedPaths });
    const server = serve(['--config', config.file]);
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      const detached = await dir.post(config.port, '/validate-process-fault', fault({ mode: 'detached-rejection' }));
      const next = await dir.post(config.port, '/validate-process-fault', fault({}));
      const metrics = await getPlain(config.metrics, '/metrics');
      const [logged] = logsWith(server, 'unhandled promise rejection (a promise nobody awaited); serving on');

      expect({
        detached: detached.json.response.allowed,
        next: next.json.response.allowed,
        running: server.child.exitCode === null,
        ready: (await getPlain(config.health, '/readyz')).status,
        counted: /^shaper_webhook_unhandled_rejections_total 1$/m.test(metrics.text),
        level: logged?.level,
        err: { type: logged?.err?.type, message: logged?.err?.message, stackNamesTheHandler: String(logged?.err?.stack).includes('process-fault-handlers.ts') },
      }).toEqual({
        detached: true,
        next: true,
        running: true,
        ready: 200,
        counted: true,
        level: 'error',
        err: { type: 'Error', message: 'detached rejection from a handler', stackNamesTheHandler: true },
      });
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('on an exception thrown by a timer: unready and not accepting at once, finishes the request in flight, then exits 1', async () => {
    // A drain period this long would outlast the test: the exception must skip it.
    const config = await dir.writeConfig({ handlers: [handlers], expectedPaths, drainSeconds: 600, timeoutSeconds: 20 });
    const releaseFile = path.join(dir.dir, `release-${config.port}`);
    const server = serve(['--config', config.file]);
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      const held = dir.post(config.port, '/validate-process-fault', fault({ mode: 'held', releaseFile })).then(
        (res) => ({ status: res.status, allowed: res.json.response.allowed, connection: res.headers.connection }),
        (error: NodeJS.ErrnoException) => ({ error: error.code }),
      );
      expect(await until(() => logsWith(server, 'held until the release file exists').length === 1, 10_000)).toBe(true);

      const bomb = await dir.post(config.port, '/validate-process-fault', fault({ mode: 'throwing-timer' }));
      expect(await until(async () => (await getPlain(config.health, '/readyz')).status === 503, 10_000)).toBe(true);
      const refused = await dir.post(config.port, '/validate-process-fault', fault({})).then(
        (res) => `answered ${res.status}`,
        (error: NodeJS.ErrnoException) => error.code,
      );
      writeFileSync(releaseFile, '');
      const exitCode = await server.exited;
      const [logged] = logsWith(server, 'uncaught exception: finishing requests in flight, then exiting');

      expect({
        bomb: bomb.json.response.allowed,
        refused,
        held: await held,
        exitCode,
        level: logged?.level,
        origin: logged?.origin,
        err: { type: logged?.err?.type, message: logged?.err?.message, stackNamesTheHandler: String(logged?.err?.stack).includes('process-fault-handlers.ts') },
        stopped: logsWith(server, 'stopped').length,
      }).toEqual({
        bomb: true,
        refused: 'ECONNREFUSED',
        held: { status: 200, allowed: true, connection: 'close' },
        exitCode: 1,
        level: 'fatal',
        origin: 'uncaughtException',
        err: { type: 'Error', message: 'timer callback threw', stackNamesTheHandler: true },
        stopped: 1,
      });
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
