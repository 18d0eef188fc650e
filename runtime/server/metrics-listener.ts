/**
 * The metrics port: `GET /metrics` from the server's registry (prom-client).
 * When it is the health port too, the health listener answers /metrics with
 * metricsAnswer() instead, and this listener is not started.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenerConfig } from '../config/server-config.js';
import { listen } from './listen.js';
import type { ServerMetrics } from './metrics.js';
import type { ProbeAnswer } from './probe-listener.js';
import { TEXT, writeResponse } from './write-response.js';

export interface MetricsListener {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

export async function startMetricsListener(config: ListenerConfig, metrics: ServerMetrics): Promise<MetricsListener> {
  const app = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return writeResponse(res, 404, TEXT, 'not found: the metrics port serves GET /metrics\n');
    metrics.registry.metrics().then(
      (text) => writeResponse(res, 200, metrics.registry.contentType, req.method === 'HEAD' ? '' : text),
      (error: unknown) => writeResponse(res, 500, TEXT, `${(error as Error).message}\n`),
    );
  };
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

/** /metrics as the health listener answers it when metrics share its port. */
export async function metricsAnswer(metrics: ServerMetrics): Promise<ProbeAnswer> {
  return { status: 200, contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
