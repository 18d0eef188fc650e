/**
 * Server-side dry-run create of webhook configurations, as `kubectl create
 * --dry-run=server` sends it: nothing is stored, every admission and validation
 * step runs. Strict field validation (kubectl's default) makes an unknown or
 * misplaced field a refusal instead of a warning and a dropped field.
 *
 * Raw JSON on purpose: a typed client would drop unknown fields and coerce
 * values before the API server could judge them.
 */
import https from 'node:https';
import type { ControlPlane } from '../../../support/kindenv/control-plane.js';
import type { K8sObject } from '../../support/helm.js';

export interface DryRunResult {
  readonly accepted: boolean;
  readonly status: number;
  /** The API server's message when it refused. */
  readonly message: string;
  /** Field paths it named (`webhooks[0].clientConfig.service.path`), from the Status causes or a decoding error. */
  readonly fields: readonly string[];
}

const RESOURCES: Record<string, string> = {
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
};
const TIMEOUT_MS = 15_000;

export interface DryRunClient {
  create(object: K8sObject): Promise<DryRunResult>;
  close(): void;
}

export function dryRunClient(controlPlane: ControlPlane): DryRunClient {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: controlPlane.ca.cert, cert: controlPlane.admin.cert, key: controlPlane.admin.key });
  const post = (urlPath: string, body: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = https.request(
        { host: '127.0.0.1', port: controlPlane.apiServerPort, path: urlPath, method: 'POST', agent, timeout: TIMEOUT_MS, headers: { 'Content-Type': 'application/json' } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer from the API server within ${TIMEOUT_MS} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  return {
    async create(object) {
      const resource = RESOURCES[object.kind];
      if (!resource) throw new Error(`not a webhook configuration: ${object.kind}`);
      const { status, body } = await post(`/apis/admissionregistration.k8s.io/v1/${resource}?dryRun=All&fieldValidation=Strict`, JSON.stringify(object));
      if (status === 201) return { accepted: true, status, message: '', fields: [] };
      const parsed = JSON.parse(body) as { kind?: string; message?: string; details?: { causes?: { field?: string }[] } };
      if (parsed.kind !== 'Status' || (status !== 400 && status !== 422)) throw new Error(`unexpected answer ${status} to a dry-run create: ${body.slice(0, 500)}`);
      const message = parsed.message ?? '';
      const causes = (parsed.details?.causes ?? []).flatMap((c) => (c.field ? [c.field] : []));
      return { accepted: false, status, message, fields: causes.length > 0 ? causes : decodingErrorFields(message) };
    },
    close: () => agent.destroy(),
  };
}

/**
 * Fields named in a 400 from decoding: `unknown field "webhooks[0].timeout"`
 * (strict field validation) or `Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32`.
 */
function decodingErrorFields(message: string): string[] {
  const unknown = [...message.matchAll(/unknown field "([^"]+)"/g)].map((m) => m[1]!);
  const typed = [...message.matchAll(/Go struct field \w+\.([\w.]+) of type/g)].map((m) => m[1]!);
  return [...unknown, ...typed];
}

/** Runs `work` over `items` with at most `limit` in flight, results in order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
