/**
 * Prometheus metrics of the admission server (prom-client), in a registry of
 * its own so that several servers can live in one process (tests).
 * Label values are bounded: webhook is a registered path, never a raw URL.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { Outcome } from '../webhook/admission/admit.js';
import { resourceKey, type CachedResource } from '../cache/cached-resource.js';
import type { ReadSource } from '../cache/informer-cache.js';
import { LatencyHistogram, type LatencySeries } from './latency-histogram.js';
import { ADMISSION_OPERATIONS } from '../webhook/operations.js';
import { registerProcessMetrics } from './process-metrics.js';

const PREFIX = 'shaper_webhook_';
/** Seconds; from well under a millisecond (a small review) to the API server's 30 s timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: `${PREFIX}requests_total`,
    help: 'Admission requests answered, by webhook path, operation, decision and response code.',
    labelNames: ['webhook', 'operation', 'allowed', 'code'] as const,
    registers: [this.registry],
    collect: () => {
      for (const count of this.requestCounts) {
        if (count.value > count.published) this.requests.inc(count.labels, count.value - count.published);
        count.published = count.value;
      }
    },
  });
  private readonly latency = new LatencyHistogram(
    `${PREFIX}request_duration_seconds`,
    'Time from the first byte of an admission request to the end of its response, by webhook path.',
    LATENCY_BUCKETS,
    this.registry,
  );
  // The hot path counts in plain numbers; prom-client reads them when scraped (its label hashing per call was 3–4% of a small review's CPU).
  private readonly inFlightCounts = new Map<string, { value: number }>();
  private readonly requestCounts: RequestCount[] = [];
  private readonly inFlight = new Gauge({
    name: `${PREFIX}requests_in_flight`,
    help: 'Admission requests being handled now, by webhook path.',
    labelNames: ['webhook'] as const,
    registers: [this.registry],
    collect: () => {
      for (const [webhook, count] of this.inFlightCounts) this.inFlight.set({ webhook }, count.value);
    },
  });
  private readonly handlerErrors = new Counter({
    name: `${PREFIX}handler_errors_total`,
    help: 'Handlers that threw something other than a denial (answered with code 500), by webhook path.',
    labelNames: ['webhook'] as const,
    registers: [this.registry],
  });
  private readonly handlerTimeouts = new Counter({
    name: `${PREFIX}handler_timeouts_total`,
    help: 'Handlers that missed their deadline, by webhook path.',
    labelNames: ['webhook'] as const,
    registers: [this.registry],
  });
  private readonly rejected = new Counter({
    name: `${PREFIX}rejected_requests_total`,
    help: 'Requests answered before any handler ran (bad body, too large, wrong method or content type), by response code.',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly shedConnections = new Counter({
    name: `${PREFIX}shed_connections_total`,
    help: 'Connections closed because the webhook port was at a bound (server.maxConnections or maxHandshakes) before they sent a request, by the bound.',
    labelNames: ['bound'] as const,
    registers: [this.registry],
  });
  private readonly cacheReads = new Counter({
    name: `${PREFIX}cache_reads_total`,
    help: 'ctx.cache reads by resource and where they were answered: cache, miss (not cached, read from the API server), live (asked for), stale (watch down, read from the API server).',
    labelNames: ['resource', 'source'] as const,
    registers: [this.registry],
  });
  readonly unhandledRejections = new Counter({
    name: `${PREFIX}unhandled_rejections_total`,
    help: 'Promises that rejected with no handler attached (e.g. one a handler started and did not await); logged, and the server serves on.',
    registers: [this.registry],
  });
  readonly certificateReloads = new Counter({
    name: `${PREFIX}certificate_reloads_total`,
    help: 'Serving certificate loads that changed the certificate in use (including the first).',
    registers: [this.registry],
  });
  readonly certificateReloadErrors = new Counter({
    name: `${PREFIX}certificate_reload_errors_total`,
    help: 'Serving certificate loads that failed; the previous certificate stays in use.',
    registers: [this.registry],
  });
  readonly certificateExpiry = new Gauge({
    name: `${PREFIX}certificate_expiry_timestamp_seconds`,
    help: 'Unix time at which the serving certificate in use expires.',
    // With workers, the primary reports the earliest of theirs (summing timestamps would mean nothing).
    aggregator: 'min',
    registers: [this.registry],
  });

  private readonly conversionReviews = new Counter({
    name: `${PREFIX}conversion_reviews_total`,
    help: 'ConversionReviews answered, by conversion path and result (Success, or Failure with every object unconverted).',
    labelNames: ['webhook', 'result'] as const,
    registers: [this.registry],
  });
  private readonly convertedObjects = new Counter({
    name: `${PREFIX}converted_objects_total`,
    help: 'Objects converted by a successful ConversionReview, by conversion path, kind (group/Kind) and the versions converted from and to.',
    labelNames: ['webhook', 'kind', 'from', 'to'] as const,
    registers: [this.registry],
  });
  private readonly conversionLatency = new LatencyHistogram(
    `${PREFIX}conversion_duration_seconds`,
    'Time from the first byte of a ConversionReview to the end of its response, by conversion path.',
    LATENCY_BUCKETS,
    this.registry,
  );

  private readonly children = new Map<string, WebhookSeries>();

  /** `processMetrics: false` leaves out the process and Node.js series; `gcDurations` adds nodejs_gc_duration_seconds to them. */
  constructor(options: { processMetrics?: boolean; gcDurations?: boolean } = {}) {
    if (options.processMetrics !== false) registerProcessMetrics(this.registry, { gcDurations: options.gcDurations ?? false });
  }

  /** The series of one webhook path, created once. */
  forWebhook(path: string): WebhookSeries {
    let series = this.children.get(path);
    if (!series) {
      const inFlight = { value: 0 };
      this.inFlightCounts.set(path, inFlight);
      const errors = this.handlerErrors.labels(path);
      const timeouts = this.handlerTimeouts.labels(path);
      // By a number made of code, operation and decision: no label string is built per request.
      const counts = new Map<number, RequestCount>();
      series = {
        latency: this.latency.forWebhook(path),
        inFlight,
        answered: (operation, allowed, code, outcome) => {
          const operationIndex = ADMISSION_OPERATIONS.indexOf(operation as (typeof ADMISSION_OPERATIONS)[number]);
          const key = (code * (ADMISSION_OPERATIONS.length + 1) + operationIndex + 1) * 2 + (allowed ? 1 : 0);
          let count = counts.get(key);
          if (!count) {
            count = { labels: { webhook: path, operation, allowed: String(allowed), code: String(code) }, value: 0, published: 0 };
            counts.set(key, count);
            this.requestCounts.push(count);
          }
          count.value++;
          if (outcome === 'error') errors.inc();
          else if (outcome === 'timeout') timeouts.inc();
        },
      };
      this.children.set(path, series);
    }
    return series;
  }

  /** The series of one conversion path. */
  forConversion(path: string): ConversionSeries {
    return {
      latency: this.conversionLatency.forWebhook(path),
      answered: (result, steps) => {
        this.conversionReviews.inc({ webhook: path, result });
        for (const step of steps) this.convertedObjects.inc({ webhook: path, ...step });
      },
    };
  }

  countRejected(code: number): void {
    this.rejected.labels(String(code)).inc();
  }

  cacheRead(resource: CachedResource, source: ReadSource): void {
    this.cacheReads.inc({ resource: resourceKey(resource), source });
  }
}

export interface WebhookSeries {
  latency: LatencySeries;
  /** Requests of this webhook being handled now: add and subtract on the hot path. */
  inFlight: { value: number };
  /** One answered request: its operation (as the review gave it), decision, response code and how the handler ended. */
  answered(operation: string, allowed: boolean, code: number, outcome: Outcome | undefined): void;
}

interface RequestCount {
  readonly labels: Record<'webhook' | 'operation' | 'allowed' | 'code', string>;
  value: number;
  published: number;
}

export interface ConversionSeries {
  latency: LatencySeries;
  /** One answered review, and for a Success each object's kind and versions. */
  answered(result: 'Success' | 'Failure', steps: readonly { kind: string; from: string; to: string }[]): void;
}
