/**
 * The health port as WebhookServer runs it (ProbeListener): liveness and
 * readiness from the main thread's heartbeat, readiness's checks, and metrics
 * when they share the port.
 */
import type { ServerConfig } from '../config/server-config.js';
import type { ServerMetrics } from './metrics.js';
import { metricsAnswer } from './metrics-listener.js';
import { ProbeListener, type ProbeAnswer } from './probe-listener.js';
import { TEXT } from './write-response.js';

/** Readiness fails once the main thread has been busy for longer than this: the kubelet's default probe timeout is 1 s. */
const BUSY_MS = 800;

export interface HealthListenerOptions {
  readonly config: ServerConfig['health'];
  /** /readyz: 200 when every check passes; the text lists them when verbose or failing. */
  readonly readiness: (verbose: boolean) => Promise<{ status: number; text: string }>;
  /** Given when metrics share this port. */
  readonly metrics: ServerMetrics | undefined;
}

export function startHealthListener({ config, readiness, metrics }: HealthListenerOptions): Promise<ProbeListener> {
  const answer = async (path: string, verbose: boolean): Promise<ProbeAnswer> => {
    if (path === '/readyz') {
      const { status, text } = await readiness(verbose);
      return { status, contentType: TEXT, body: text };
    }
    if (path === '/metrics' && metrics) return metricsAnswer(metrics);
    return { status: 404, contentType: TEXT, body: `no probe at ${path}\n` };
  };
  return ProbeListener.start({ port: config.port, bindAddress: config.bindAddress, stallMs: config.stallSeconds * 1000, busyMs: BUSY_MS, answer });
}
