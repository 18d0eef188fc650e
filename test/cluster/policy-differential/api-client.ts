/**
 * Requests to the API server as a user with the admin certificate, answered
 * the way a client sees them: the status, the Status body of a refusal, and
 * each `Warning` header (read from the raw headers: Node joins repeated ones
 * with commas, which warnings contain).
 */
import https from 'node:https';
import type { ControlPlane } from '../../../support/kindenv/control-plane.js';

export interface ApiAnswer {
  readonly status: number;
  readonly body: any;
  readonly warnings: string[];
}

/**
 * RFC 7234 warn-text as kube-apiserver writes it: `299 - "<text>"`, quotes and backslashes escaped,
 * in UTF-8 (Node hands header bytes over as latin1).
 */
export function parseWarning(header: string): string {
  const match = /^299 - "(.*)"$/s.exec(Buffer.from(header, 'latin1').toString('utf8'));
  if (!match) throw new Error(`unexpected Warning header: ${header}`);
  return match[1]!.replace(/\\(.)/g, '$1');
}

/** `timeoutMs`: how long a request may go without an answer (a request near the CEL cost budget takes seconds on a loaded machine). */
export function apiClient(controlPlane: ControlPlane, timeoutMs = 15_000) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: controlPlane.ca.cert, cert: controlPlane.admin.cert, key: controlPlane.admin.key });
  const request = (method: string, urlPath: string, body?: unknown) =>
    new Promise<ApiAnswer>((resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port: controlPlane.apiServerPort, path: urlPath, method, agent, timeout: timeoutMs, headers: body === undefined ? {} : { 'Content-Type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const warnings: string[] = [];
            for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() === 'warning') warnings.push(parseWarning(res.rawHeaders[i + 1]!));
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              /* not JSON */
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, warnings });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${urlPath} within ${timeoutMs / 1000} s`)));
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  return { request, close: () => agent.destroy() };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** The collection path of a resource: `/api/v1/namespaces/x/configmaps`, `/apis/apps/v1/namespaces/x/deployments`. */
export function collectionPath(resource: { group: string; version: string; resource: string }, namespace?: string): string {
  const base = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  return `${base}${namespace ? `/namespaces/${namespace}` : ''}/${resource.resource}`;
}
