/**
 * Server-side dry-run creates of Profiles through the API server, as the
 * admin user over HTTPS keep-alive on loopback: a bounded number of requests
 * (and a bounded time) with a fixed number in flight; the latency of each,
 * from the request written to the whole answer read.
 */
import https from 'node:https';
import type { ControlPlane } from '../../support/kindenv/control-plane.ts';

export interface ApiAnswer {
  readonly status: number;
  readonly body: any;
}

export interface LoadResult {
  /** Milliseconds, one per answered request, sorted. */
  readonly latenciesMs: number[];
  readonly seconds: number;
  /** Answers other than 201 Created (the objects sent are all valid). */
  readonly failures: number;
  readonly firstFailure?: string;
}

export function apiAgent(plane: ControlPlane, sockets: number): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets: sockets, ca: plane.ca.cert, cert: plane.admin.cert, key: plane.admin.key });
}

export function apiRequest(plane: ControlPlane, agent: https.Agent, method: string, urlPath: string, body?: unknown): Promise<ApiAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: plane.apiServerPort, path: urlPath, method, agent, timeout: 15_000, headers: body === undefined ? {} : { 'Content-Type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${urlPath} within 15 s`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export const profilesPath = (namespace: string) => `/apis/shaper.io/v1alpha1/namespaces/${namespace}/profiles?dryRun=All`;

/** A Profile every check admits, like the admission benchmarks' body: all fields set. */
export function validProfile(namespace: string, index: number): object {
  return {
    apiVersion: 'shaper.io/v1alpha1',
    kind: 'Profile',
    metadata: { name: `bench-${index}`, namespace, labels: { app: 'bench', 'shaper.io/tier': 'gold' } },
    spec: { tier: 'gold', priority: 900, resources: { cpu: '500m', memory: '512Mi' }, description: 'latency-sensitive workloads of the benchmark' },
  };
}

/** `requests` dry-run creates into `namespace`, `concurrency` at a time on `agent`'s connections, stopping early after `maxSeconds`. */
export async function createLoad(plane: ControlPlane, agent: https.Agent, namespace: string, requests: number, concurrency: number, maxSeconds: number): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  const worker = async () => {
    while (next < requests && performance.now() < deadline) {
      const index = next++;
      const sent = performance.now();
      const answer = await apiRequest(plane, agent, 'POST', profilesPath(namespace), validProfile(namespace, index));
      latenciesMs.push(performance.now() - sent);
      if (answer.status !== 201) {
        failures++;
        firstFailure ??= `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latenciesMs: latenciesMs.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000, failures, ...(firstFailure && { firstFailure }) };
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
