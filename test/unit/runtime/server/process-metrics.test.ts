/**
 * The process and Node.js series against prom-client's collectDefaultMetrics, and the GC durations against
 * Node's own `gc` performance entries (the oracle): every collection counted, by kind.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerProcessMetrics } from '../../../../runtime/server/process-metrics.js';

const GC_DURATIONS = 'nodejs_gc_duration_seconds';
const KIND_OF_ENTRY: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

async function described(registry: Registry) {
  const metrics = await registry.getMetricsAsJSON();
  return metrics.map(({ name, help, type }) => ({ name, help, type })).sort((a, b) => a.name.localeCompare(b.name));
}

async function gcCounts(registry: Registry): Promise<Record<string, number>> {
  const histogram = (await registry.getSingleMetric(GC_DURATIONS)!.get()) as MetricObjectWithValues<MetricValueWithName<string>>;
  const counts: Record<string, number> = {};
  for (const value of histogram.values) if (value.metricName === `${GC_DURATIONS}_count`) counts[String(value.labels.kind)] = value.value;
  return counts;
}

/** Garbage that brings on scavenges, and a retained heap that grows past the old generation's first limit. */
function makeGarbage(): number {
  let retained: object[] = [];
  let kept = 0;
  for (let round = 0; round < 40; round++) {
    for (let index = 0; index < 50_000; index++) {
      const item = { round, index, text: `item-${index}` };
      if (index % 4 === 0) retained.push(item);
    }
    kept += retained.length;
    if (round % 10 === 9) retained = [];
  }
  return kept;
}

describe('process metrics', () => {
  it("expose the series of prom-client's collectDefaultMetrics, the GC durations only when asked for", async () => {
    const theirs = new Registry();
    collectDefaultMetrics({ register: theirs });
    const all = await described(theirs);
    const withGc = new Registry();
    registerProcessMetrics(withGc, { gcDurations: true });
    expect(await described(withGc)).toEqual(all);
    const withoutGc = new Registry();
    registerProcessMetrics(withoutGc, { gcDurations: false });
    expect(await described(withoutGc)).toEqual(all.filter((metric) => metric.name !== GC_DURATIONS));
  });

  it("count every collection by kind, as Node's gc performance entries do", async () => {
    const registry = new Registry();
    registerProcessMetrics(registry, { gcDurations: true });
    const seen: Record<string, number> = {};
    const oracle = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = KIND_OF_ENTRY[(entry as unknown as { detail: { kind: number } }).detail.kind]!;
        seen[kind] = (seen[kind] ?? 0) + 1;
      }
    });
    oracle.observe({ entryTypes: ['gc'] });
    expect(makeGarbage()).toBeGreaterThan(0);
    // Node delivers its entries a few turns of the event loop after each collection, to every observer alike.
    for (let turn = 0; turn < 10; turn++) await nextTurn();
    oracle.disconnect();
    const counted = await gcCounts(registry);
    expect(seen.minor).toBeGreaterThan(5);
    expect(seen.major).toBeGreaterThan(0);
    expect(counted).toEqual(seen);
  });
});
