/**
 * prom-client's default process and Node.js metrics, with the GC durations
 * only when asked for (gc-durations.ts says why). prom-client's
 * collectDefaultMetrics cannot leave one collector out, so its collectors are
 * registered one by one; a unit test holds the set of series equal to
 * collectDefaultMetrics' own.
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- every project that compiles this file (the bench, the tests) needs these ambient types, not only tsconfig.json
/// <reference path="./prom-client-collectors.d.ts" />
import type { Registry } from 'prom-client';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import eventLoopLag from 'prom-client/lib/metrics/eventLoopLag.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import version from 'prom-client/lib/metrics/version.js';
import { observeGcDurations } from './gc-durations.js';

/**
 * How often the event-loop delay histogram samples (prom-client's default is 10 ms). Its timer woke an idle server
 * 100 times a second, 1.4 % of a CPU doing nothing; every 100 ms still sees any stall a probe or a review would.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

const COLLECTORS = [
  processCpuTotal,
  processStartTime,
  osMemoryHeap,
  processOpenFileDescriptors,
  processMaxFileDescriptors,
  eventLoopLag,
  processResources,
  processHandles,
  processRequests,
  heapSizeAndUsed,
  heapSpacesSizeAndUsed,
  version,
];

/** Registers the process and Node.js series in `registry`; `nodejs_gc_duration_seconds` only with `gcDurations`. */
export function registerProcessMetrics(registry: Registry, options: { readonly gcDurations: boolean }): void {
  for (const collector of COLLECTORS) collector(registry, { eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  if (options.gcDurations) observeGcDurations(registry);
}
