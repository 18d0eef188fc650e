/**
 * Large reviews against the heap: a review that could never fit is refused
 * under its failurePolicy (413 under Fail), large reviews queue instead of running
 * together, and the built server with the chart's heap survives reviews of
 * every shape up to maxRequestBytes (before the structural estimate, 3 MB of
 * empty objects to a defaulter killed it with SIGABRT).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { MemoryBudget, reviewHeapCost } from '../../../runtime/server/memory-budget.js';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { chartContainerEnv } from '../../support/helm.js';
import { REVIEW_SHAPES, shapedReview } from '../../../support/review-shapes.js';
import { serve, ServeDir, waitReady } from '../../support/serve-process.js';

const MiB = 1024 * 1024;
const widget = (properties: number, uid: string) =>
  admissionReview({
    uid,
    object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'a' }, spec: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`k${i}`, i])) },
  });

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

function peakRssMiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

describe('shaper-gen serve with the chart heap, reviews of every shape up to maxRequestBytes', () => {
  it('answers each, allowed or refused with 413, never dies, and stays under the chart memory limit', async () => {
    const env = await chartContainerEnv(path.join(REPO_ROOT, 'charts/shaper-webhooks'));
    expect(env).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: '--max-semi-space-size=4 --max-old-space-size=112' });
    const dir = await ServeDir.create();
    const config = await dir.writeConfig();
    const server = serve(['--config', config.file], { env });
    const outcomes: string[] = [];
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      for (const path of ['/mutate-profile', '/validate-profile']) {
        for (const shape of Object.keys(REVIEW_SHAPES)) {
          for (const bytes of [1.5 * MiB, 3 * MiB, 7 * MiB - 1024]) {
            const uid = `${shape.replaceAll(' ', '-')}-${bytes}`;
            const res = await dir.post(config.port, path, shapedReview(uid, shape, bytes)).catch((error: unknown) => {
              throw new Error(`${path} ${shape} ${bytes}: ${String(error)}; server: ${server.output().slice(-3000)}`);
            });
            expect(server.child.exitCode, `${path} ${shape} ${bytes}: ${server.output().slice(-2000)}`).toBeNull();
            const response = res.json.response;
            const outcome = response.allowed ? 'allowed' : `${response.status.code} ${response.status.reason}`;
            expect([res.status, response.uid, outcome === 'allowed' || outcome === '413 RequestEntityTooLarge']).toEqual([200, uid, true]);
            outcomes.push(`${path} ${shape} ${(bytes / MiB).toFixed(1)} MiB: ${outcome}`);
          }
        }
      }
      const small = await dir.post(
        config.port,
        '/validate-profile',
        admissionReview({ uid: 'after', object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'a' }, spec: { tier: 'gold' } } }),
      );
      expect(small.json.response).toEqual({ uid: 'after', allowed: true });
      const peak = peakRssMiB(server.child.pid!);
      console.log(`${outcomes.join('\n')}\npeak RSS ${peak.toFixed(0)} MiB`);
      expect(peak).toBeLessThan(256);
      // Objects of the shape real ones have are admitted up to 3 MiB, more than etcd stores: the estimate is not a blanket refusal.
      expect(outcomes.filter((line) => line.includes('env-var-like') && !line.includes('7.0 MiB'))).toEqual([
        '/mutate-profile env-var-like objects 1.5 MiB: allowed',
        '/mutate-profile env-var-like objects 3.0 MiB: allowed',
        '/validate-profile env-var-like objects 1.5 MiB: allowed',
        '/validate-profile env-var-like objects 3.0 MiB: allowed',
      ]);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      dir.remove();
    }
  }, 240_000);
});
