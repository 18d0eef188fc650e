/**
 * The metrics port: `GET /metrics` from the server's registry (prom-client).
 * When it is the health port too, the health listener answers /metrics with
 * metricsAnswer() instead, and this listener is not started.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenerConfig } from '../config/server-config.js';
import { createPlainApp } from './health.js';
import { listen } from './listen.js';
import type { ServerMetrics } from './metrics.js';
import type { ProbeAnswer } from './probe-listener.js';

export interface MetricsListener {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

export async function startMetricsListener(config: ListenerConfig, metrics: ServerMetrics): Promise<MetricsListener> {
  const app = createPlainApp();
  app.get('/metrics', (_req, res) => {
    metrics.registry.metrics().then(
      (text) => res.type(metrics.registry.contentType).send(text),
      (error: Error) => res.status(500).type('text/plain').send(error.message),
    );
  });
  const server = http.createServer(app);
  const address = await listen(server, config);
  return {
    address,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

/** /metrics as the health listener's worker thread relays it. */
export async function metricsAnswer(metrics: ServerMetrics): Promise<ProbeAnswer> {
  return { status: 200, contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
