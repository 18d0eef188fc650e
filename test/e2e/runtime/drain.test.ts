/**
 * SIGTERM under steady keep-alive load, against the built `shaper-gen serve`:
 * the drain must move clients off their pooled connections while it still
 * listens, so that closing the listener drops no request.
 */
import { once } from 'node:events';
import https from 'node:https';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { KeepAliveLoad } from '../../support/keep-alive-load.js';
import { getPlain, serve, ServeDir, until, waitReady } from '../../support/serve-process.js';

let dir: ServeDir;
beforeAll(async () => {
  dir = await ServeDir.create();
});
afterAll(() => dir.remove());

const review = admissionReview({ object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'a' }, spec: {} } });

describe('graceful drain', () => {
  it('answers with Connection: close while draining, so that no keep-alive request is reset when the listener closes', async () => {
    const config = await dir.writeConfig({ drainSeconds: 3, timeoutSeconds: 5 });
    const server = serve(['--config', config.file]);
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      const load = new KeepAliveLoad({ port: config.port, ca: dir.ca.cert, path: '/mutate-profile?timeout=5s', body: review, sockets: 8, maxRequests: 40_000, maxMs: 25_000 });
      const finished = load.run();

      expect(await until(() => load.replies.length >= 300, 10_000)).toBe(true);
      const closeRepliesBeforeSignal = load.replies.filter((reply) => reply.connectionClose).length;
      server.child.kill('SIGTERM');
      // The endpoints controller removes the pod some time after it turns unready; until then new connections reach it too.
      expect(await until(async () => (await getPlain(config.health, '/readyz').catch(() => undefined))?.status === 503, 5_000)).toBe(true);
      const repliesWhenUnready = load.replies.length;
      expect(await until(() => load.replies.length >= repliesWhenUnready + 100, 5_000)).toBe(true);
      load.removeEndpoint();
      const result = await finished;
      const exitCode = await server.exited;

      const afterDrainSeen = result.replies.filter((reply) => result.drainSeenAt !== undefined && reply.sent >= result.drainSeenAt);
      const closeReplies = result.replies.filter((reply) => reply.connectionClose).length;
      console.info(`drain: ${result.sent} requests sent, ${result.replies.length} replies, ${closeReplies} with Connection: close, transport errors: ${JSON.stringify(result.transportErrors)}`);
      expect({
        exitCode,
        transportErrors: result.transportErrors,
        notAllowed: result.replies.filter((reply) => reply.status !== 200 || reply.allowed !== true).length,
        closeRepliesBeforeSignal,
        drainSeen: result.drainSeenAt !== undefined,
        keepAliveRepliesAfterDrainSeen: afterDrainSeen.filter((reply) => !reply.connectionClose).length,
        workers: { rerouted: result.rerouted, outOfBudget: result.outOfBudget },
      }).toEqual({
        exitCode: 0,
        transportErrors: [],
        notAllowed: 0,
        closeRepliesBeforeSignal: 0,
        drainSeen: true,
        keepAliveRepliesAfterDrainSeen: 0,
        workers: { rerouted: 8, outOfBudget: 0 },
      });
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 60_000);

  it('closes a pooled connection that stays idle through the drain, while it still accepts new ones', async () => {
    const config = await dir.writeConfig({ drainSeconds: 4, timeoutSeconds: 5 });
    const server = serve(['--config', config.file]);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      const connected = new Promise<Socket>((resolve) => agent.once('free', (socket: Socket) => resolve(socket)));
      expect((await dir.post(config.port, '/mutate-profile', review, agent)).json.response.allowed).toBe(true);
      const pooled = await connected;
      const closed = once(pooled, 'close');

      server.child.kill('SIGTERM');
      await closed;
      const afterwards = await dir.post(config.port, '/mutate-profile', review);
      expect({ status: afterwards.status, allowed: afterwards.json.response.allowed, connection: afterwards.headers.connection, exitCode: await server.exited }).toEqual({
        status: 200,
        allowed: true,
        connection: 'close',
        exitCode: 0,
      });
    } finally {
      agent.destroy();
      server.child.kill('SIGKILL');
    }
  }, 30_000);

  it('drops no request across 20 SIGTERMs under keep-alive load: every request sent before the listener closed is answered', async () => {
    const rounds = [];
    for (let round = 0; round < 20; round++) {
      const config = await dir.writeConfig({ drainSeconds: 2, timeoutSeconds: 3 });
      const server = serve(['--config', config.file]);
      try {
        expect(await waitReady(config.health, server)).toContain('readyz check passed');
        const load = new KeepAliveLoad({ port: config.port, ca: dir.ca.cert, path: '/mutate-profile?timeout=5s', body: review, sockets: 8, maxRequests: 20_000, maxMs: 15_000 });
        const finished = load.run();
        expect(await until(() => load.replies.length >= 100, 10_000)).toBe(true);
        server.child.kill('SIGTERM');
        // Endpoints drop the pod during drainSeconds; from then on only pooled connections carry requests here.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        load.removeEndpoint();
        const result = await finished;
        rounds.push({
          exitCode: await server.exited,
          transportErrors: result.transportErrors,
          notAllowed: result.replies.filter((reply) => reply.status !== 200 || reply.allowed !== true).length,
          answeredAll: result.replies.length === result.sent,
        });
      } finally {
        server.child.kill('SIGKILL');
      }
    }
    expect(rounds).toEqual(Array.from({ length: 20 }, () => ({ exitCode: 0, transportErrors: [], notAllowed: 0, answeredAll: true })));
  }, 240_000);
});
