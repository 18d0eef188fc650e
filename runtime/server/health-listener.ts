/**
 * The health port as WebhookServer runs it: liveness answered in the probe
 * thread (ProbeListener), readiness — and metrics, when they share the port —
 * asked of this thread within the kubelet's probe timeout.
 */
import type { ServerConfig } from '../config/server-config.js';
import type { ServerMetrics } from './metrics.js';
import { metricsAnswer } from './metrics-listener.js';
import { ProbeListener, type ProbeAnswer } from './probe-listener.js';
import { TEXT } from './write-response.js';

/** A readiness probe's answer must come back within the kubelet's default 1 s probe timeout. */
const PROBE_RELAY_MS = 800;

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
  return ProbeListener.start({ port: config.port, bindAddress: config.bindAddress, stallMs: config.stallSeconds * 1000, relayMs: PROBE_RELAY_MS, answer });
}
