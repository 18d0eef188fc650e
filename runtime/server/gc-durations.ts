/**
 * `nodejs_gc_duration_seconds`, as prom-client's collector names and buckets
 * it, but counting every collection Node reports (prom-client's reads only
 * the first entry of each batch). Off unless asked for (metrics.gcDurations):
 * Node builds the entries as JavaScript objects that V8 keeps in the old
 * generation, and under load they brought on mark-compacts (ADR 0016).
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';

const KIND_BY_ENTRY: Readonly<Record<number, string>> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
/** prom-client's buckets for this series, so that dashboards built on it read the same. */
const BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];

/** Observes every garbage collection of this process into a histogram registered in `registry`. */
export function observeGcDurations(registry: Registry): void {
  const histogram = new Histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const byKind = new Map<number, Histogram.Internal<'kind'>>();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind } = (entry as unknown as { detail: { kind: number } }).detail;
      let series = byKind.get(kind);
      if (!series) byKind.set(kind, (series = histogram.labels(KIND_BY_ENTRY[kind] ?? 'other')));
      series.observe(entry.duration / 1000);
    }
  }).observe({ entryTypes: ['gc'] });
}
