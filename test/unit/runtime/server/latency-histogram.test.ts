/** The hot-path latency histogram against prom-client's own Histogram as the oracle: same exposition, same aggregation across workers. */
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../../../runtime/server/latency-histogram.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OBSERVED: [string, number][] = [
  ['/mutate-profile', 0.0004],
  ['/mutate-profile', 0.0005],
  ['/validate-profile', 0.003],
  ['/mutate-profile', 0.7],
  ['/validate-profile', 31],
  ['/mutate-profile', 0.0012],
];

function both(observed: readonly [string, number][]) {
  const ours = new Registry();
  const theirs = new Registry();
  const histogram = new LatencyHistogram('latency_seconds', 'Latency.', BUCKETS, ours);
  const oracle = new Histogram({ name: 'latency_seconds', help: 'Latency.', labelNames: ['webhook'], buckets: BUCKETS, registers: [theirs] });
  for (const [webhook, seconds] of observed) {
    histogram.forWebhook(webhook).observe(seconds);
    oracle.labels(webhook).observe(seconds);
  }
  return { ours, theirs };
}

describe('LatencyHistogram', () => {
  it('is exposed exactly as prom-client exposes its Histogram', async () => {
    const { ours, theirs } = both(OBSERVED);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('sums across workers exactly as prom-client sums its Histogram (AggregatorRegistry)', async () => {
    const first = both(OBSERVED.slice(0, 3));
    const second = both(OBSERVED.slice(3));
    const ours = AggregatorRegistry.aggregate([await first.ours.getMetricsAsJSON(), await second.ours.getMetricsAsJSON()]);
    const theirs = AggregatorRegistry.aggregate([await first.theirs.getMetricsAsJSON(), await second.theirs.getMetricsAsJSON()]);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
