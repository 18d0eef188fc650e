/**
 * docs/reference/metrics.md: the series `/metrics` serves, read from a
 * ServerMetrics registry (runtime/server/metrics.ts): name, type, labels and
 * help text as prom-client exposes them. Each webhook series is touched once
 * so that metrics whose labels are only known from their values (the latency
 * histogram) show them too.
 */
import { ServerMetrics } from '../../runtime/server/metrics.ts';
import { code, generatedHeader, paragraph, table } from './markdown.ts';

interface Described {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly labels: readonly string[];
}

export async function metricsPage(): Promise<string> {
  const metrics = new ServerMetrics({ processMetrics: false });
  metrics.forWebhook('/validate-example').latency.observe(0.001);
  metrics.forConversion('/convert-example').latency.observe(0.001);
  const described: Described[] = [];
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const readable = metric as unknown as {
      labelNames?: readonly string[];
      get(): Promise<{ name: string; help: string; type: string; values: { labels: Record<string, unknown> }[] }>;
    };
    const declared = readable.labelNames;
    const { name, help, type, values } = await readable.get();
    const seen = new Set<string>(declared ?? []);
    for (const value of values) for (const label of Object.keys(value.labels)) if (label !== 'le') seen.add(label);
    described.push({ name, type, help, labels: [...seen] });
  }
  if (described.length === 0) throw new Error('scripts/docs: ServerMetrics registers no metrics');
  return `${[
    generatedHeader('Metrics', ['runtime/server/metrics.ts']),
    '',
    paragraph(`The metrics port (${code('metrics.port')}, 8080; chart: ${code('server.ports.metrics')}) serves these at
      ${code('/metrics')} in the Prometheus text format, besides prom-client's default process and Node.js metrics
      (${code('nodejs_gc_duration_seconds')} only with ${code('metrics.gcDurations')}: ADR 0016 says why). The
      ${code('webhook')} label is the registered path, never the request's URL, so label values stay bounded. With
      ${code('workers')} above 1 the primary process serves the workers' series, aggregated by prom-client's AggregatorRegistry.`),
    '',
    table(
      ['metric', 'type', 'labels', 'meaning'],
      described.map((metric) => [code(metric.name), metric.type, metric.labels.map((label) => code(label)).join(', ') || '—', metric.help]),
    ),
  ].join('\n')}\n`;
}
