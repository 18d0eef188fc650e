/** Starts a real WebhookServer on loopback for tests, with a CA-signed certificate in a temp cert dir. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { DEFAULT_SERVER_CONFIG, mergeServerConfig, type ServerConfigOverrides } from '../../runtime/config/server-config.js';
import type { KubeClient } from '../../runtime/webhook/contract.js';
import type { MemoryBudget } from '../../runtime/server/memory-budget.js';
import { registerConversions, registerWebhooks } from '../../runtime/server/registry.js';
import { WebhookServer, type ListeningAddresses } from '../../runtime/server/webhook-server.js';
import { freePort } from '../../support/free-port.js';
import { createTestCA, type Pem, type TestCA } from '../../support/pki.js';

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface TestServer {
  server: WebhookServer;
  addresses: ListeningAddresses;
  ca: TestCA;
  certDir: string;
  logs: Record<string, unknown>[];
  /** POST to the webhook port over HTTPS, verifying the server against the test CA. */
  post(urlPath: string, body: unknown, options?: { headers?: Record<string, string>; method?: string; client?: Pem; agent?: https.Agent; chunked?: boolean }): Promise<HttpResult>;
  /** GET from the health or metrics port. */
  get(port: 'health' | 'metrics', urlPath: string): Promise<HttpResult>;
  stop(): Promise<void>;
}

export async function startTestServer(options: {
  webhooks: readonly unknown[];
  conversions?: readonly unknown[];
  config?: ServerConfigOverrides;
  kube?: KubeClient;
  caName?: string;
  memory?: MemoryBudget;
}): Promise<TestServer> {
  const ca = await createTestCA(options.caName);
  const certDir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-certs-'));
  mkdirSync(certDir, { recursive: true });
  const serving = await ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
  writeFileSync(path.join(certDir, 'tls.crt'), serving.cert);
  writeFileSync(path.join(certDir, 'tls.key'), serving.key);
  const base = mergeServerConfig(DEFAULT_SERVER_CONFIG, {
    webhook: { bindAddress: '127.0.0.1', port: 0, certDir, certPollSeconds: 1 },
    // Port 0 disables health and metrics, so take free ports for them.
    health: { bindAddress: '127.0.0.1', port: await freePort() },
    metrics: { bindAddress: '127.0.0.1', port: await freePort() },
    shutdown: { drainSeconds: 0, timeoutSeconds: 5 },
  });
  const config = mergeServerConfig(base, options.config ?? {});
  const logs: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const server = new WebhookServer({
    config,
    webhooks: registerWebhooks(options.webhooks),
    conversions: registerConversions(options.conversions ?? []),
    log,
    kube: options.kube ?? {
      get config(): never {
        throw new Error('no cluster in this test');
      },
      api(): never {
        throw new Error('no cluster in this test');
      },
    },
    memory: options.memory,
  });
  const addresses = await server.start();

  return {
    server,
    addresses,
    ca,
    certDir,
    logs,
    post(urlPath, body, { headers = {}, method = 'POST', client, agent, chunked = false } = {}) {
      const payload = typeof body === 'string' ? body : JSON.stringify(body);
      return request(
        https,
        {
          host: '127.0.0.1',
          servername: 'localhost',
          port: addresses.webhook.port,
          path: urlPath,
          method,
          ca: ca.cert,
          ...(client ?? {}),
          agent: agent ?? false,
          headers: { 'Content-Type': 'application/json', ...(chunked ? {} : { 'Content-Length': String(Buffer.byteLength(payload)) }), ...headers },
        },
        payload,
        chunked,
      );
    },
    get(port, urlPath) {
      const address = port === 'health' ? addresses.health : addresses.metrics;
      return request(http, { host: '127.0.0.1', port: address!.port, path: urlPath, method: 'GET', agent: false }, undefined);
    },
    async stop() {
      await server.shutdown();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

export function request(transport: typeof http | typeof https, options: https.RequestOptions, payload: string | undefined, chunked = false): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = transport.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (chunked && payload) {
      // Several writes: the body goes out with Transfer-Encoding: chunked and no Content-Length.
      for (let i = 0; i < payload.length; i += 16 * 1024) req.write(payload.slice(i, i + 16 * 1024));
      req.end();
    } else req.end(payload);
  });
}
