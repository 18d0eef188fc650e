/**
 * A histogram of admission latency by webhook path, registered in a
 * prom-client Registry like any of its metrics (so /metrics and the workers'
 * aggregation read it the same way), but observed with plain array writes:
 * prom-client's Histogram hashes the label set on every observation, which
 * was 2–3% of a small review's CPU (`npm run bench -- admission-profile`).
 */
import type { Registry } from 'prom-client';

/** One label set's series: call on the hot path. */
export interface LatencySeries {
  observe(seconds: number): void;
}

interface Series {
  readonly webhook: string;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** The value shape prom-client's registry formats and AggregatorRegistry sums. */
interface ExportedValue {
  value: number;
  labels: Record<string, string | number>;
  metricName: string;
}

export class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  forWebhook(webhook: string): LatencySeries {
    let series = this.series.get(webhook);
    if (!series) {
      series = { webhook, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      this.series.set(webhook, series);
    }
    const { bounds } = this;
    const own = series;
    return {
      observe(seconds: number): void {
        own.sum += seconds;
        own.count++;
        for (let i = 0; i < bounds.length; i++) {
          if (seconds <= bounds[i]!) {
            own.counts[i]!++;
            return;
          }
        }
      },
    };
  }

  /** What prom-client's Registry calls on a scrape (and AggregatorRegistry on each worker): cumulative buckets, +Inf, sum, count. */
  get(): { name: string; help: string; type: string; aggregator: string; values: ExportedValue[] } {
    const values: ExportedValue[] = [];
    for (const { webhook, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({ value: cumulative, labels: { le: bound, webhook }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: count, labels: { le: '+Inf', webhook }, metricName: `${this.name}_bucket` });
      values.push({ value: sum, labels: { webhook }, metricName: `${this.name}_sum` });
      values.push({ value: count, labels: { webhook }, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
