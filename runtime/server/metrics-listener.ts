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

export interface MetricsListener {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

export async function startMetricsListener(config: ListenerConfig, metrics: ServerMetrics): Promise<MetricsListener> {
  const app = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return reply(res, 404, 'text/plain; charset=utf-8', 'not found: the metrics port serves GET /metrics\n');
    metrics.registry.metrics().then(
      (text) => reply(res, 200, metrics.registry.contentType, req.method === 'HEAD' ? '' : text),
      (error: Error) => reply(res, 500, 'text/plain; charset=utf-8', `${error.message}\n`),
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

/** /metrics as the health listener's worker thread relays it. */
export async function metricsAnswer(metrics: ServerMetrics): Promise<ProbeAnswer> {
  return { status: 200, contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

function reply(res: http.ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
