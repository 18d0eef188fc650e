/**
 * Large reviews against the heap: a review that could never fit is refused
 * under its failurePolicy (413 under Fail), large reviews queue instead of running
 * together, and the built server with the chart's heap survives a 7 MiB
 * review of small properties (before the budget it died of heap exhaustion).
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { MemoryBudget, reviewHeapCost } from '../../../runtime/server/memory-budget.js';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { serve, ServeDir, waitReady } from '../../support/serve-process.js';

const MiB = 1024 * 1024;
const widget = (properties: number, uid: string) =>
  admissionReview({ uid, object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'a' }, spec: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`k${i}`, i])) } });

class RecordingBudget extends MemoryBudget {
  peak = 0;
  override tryAcquire(cost: number) {
    const release = super.tryAcquire(cost);
    this.peak = Math.max(this.peak, this.bytesInUse);
    return release;
  }
  override acquire(cost: number, timeoutMs: number) {
    return super.acquire(cost, timeoutMs).then((release) => {
      this.peak = Math.max(this.peak, this.bytesInUse);
      return release;
    });
  }
}

describe('the review heap budget', () => {
  let server: TestServer;
  const budget = new RecordingBudget(12 * MiB);
  beforeAll(async () => {
    server = await startTestServer({ webhooks, memory: budget });
  });
  afterAll(() => server.stop());

  it('refuses a review that could never fit under its failurePolicy (Fail: denied with 413) naming what it needs, and serves on', async () => {
    const review = widget(120_000, 'big-uid');
    const cost = reviewHeapCost(JSON.stringify(review), true);
    const res = await server.post('/mutate-widget', review);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'big-uid',
        allowed: false,
        status: {
          metadata: {},
          status: 'Failure',
          code: 413,
          reason: 'RequestEntityTooLarge',
          message: `webhook mutate-widget.example.io (/mutate-widget) cannot review this request: this review needs about ${(cost / MiB).toFixed(0)} MiB of heap to decode, default and diff, more than the 12 MiB the server keeps for reviews: raise the container's memory limit (chart: resources.limits.memory) or write smaller objects`,
        },
      },
    });
    const small = admissionReview({ uid: 'small-uid', object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'a' }, spec: { size: 3 } } });
    expect((await server.post('/validate-widget', small)).json.response).toEqual({ uid: 'small-uid', allowed: true, warnings: ['checked by the widget validator'] });
  });

  it('runs large reviews one after another when together they would not fit, and answers every one', async () => {
    const reviews = Array.from({ length: 4 }, (_, i) => widget(40_000, `queued-${i}`));
    const cost = reviewHeapCost(JSON.stringify(reviews[0]), true);
    expect(cost).toBeLessThan(12 * MiB);
    expect(2 * cost).toBeGreaterThan(12 * MiB);
    const answers = await Promise.all(reviews.map((review) => server.post('/mutate-widget', review)));
    expect(answers.map((a) => [a.status, a.json.response.uid, a.json.response.allowed])).toEqual(reviews.map((_, i) => [200, `queued-${i}`, true]));
    expect(budget.peak).toBe(cost);
    expect(budget.bytesInUse).toBe(0);
  });
});

describe('shaper-gen serve with the chart heap', () => {
  it('survives a 7 MiB review of small properties to a defaulter', async () => {
    const helm = path.join(process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache/shaper-gen'), 'bin/helm');
    const deployment = execFileSync(helm, ['template', 'm', path.join(REPO_ROOT, 'charts/shaper-webhooks'), '--show-only', 'templates/deployment.yaml'], { encoding: 'utf8' });
    const nodeOptions = /name: NODE_OPTIONS\s+value: "([^"]*)"/.exec(deployment)![1]!;
    expect(nodeOptions).toBe('--max-semi-space-size=4 --max-old-space-size=112');
    const dir = await ServeDir.create();
    const config = await dir.writeConfig();
    const server = serve(['--config', config.file], { nodeOptions });
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      const review = admissionReview({
        uid: 'seven-mib',
        object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'a' }, spec: { extra: Object.fromEntries(Array.from({ length: 440_000 }, (_, i) => [`k${i}`, i])) } },
      });
      expect(JSON.stringify(review).length).toBeGreaterThan(6.5 * MiB);
      const res = await dir.post(config.port, '/mutate-profile', review);
      expect([res.status, res.json.response.uid]).toEqual([200, 'seven-mib']);
      expect(server.child.exitCode).toBeNull();
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      dir.remove();
    }
  }, 60_000);
});
