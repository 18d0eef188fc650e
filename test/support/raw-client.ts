/** Requests to a control plane's API server with JSON as written, as the admin. */
import https from 'node:https';
import type { ControlPlane } from '../../support/kindenv/control-plane.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
  json: unknown;
}

export interface RawClient {
  request(method: string, urlPath: string, body?: unknown): Promise<RawResponse>;
  close(): void;
}

/** JSON as written, no client model in between (client-node's would rename x-kubernetes-* keys and drop what it does not know). */
export function rawClient(plane: ControlPlane): RawClient {
  const agent = new https.Agent({ keepAlive: true, ca: plane.ca.cert, cert: plane.admin.cert, key: plane.admin.key });
  return {
    request: (method, urlPath, body) =>
      new Promise((resolve, reject) => {
        const request = https.request(
          { host: '127.0.0.1', port: plane.apiServerPort, path: urlPath, method, agent, timeout: 15_000, headers: { 'Content-Type': 'application/json' } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const warning = response.headers.warning;
              resolve({
                status: response.statusCode ?? 0,
                headers: { warning: Array.isArray(warning) ? warning.join(', ') : warning },
                text,
                json: parseJson(text),
              });
            });
            response.on('error', reject);
          },
        );
        request.on('timeout', () => request.destroy(new Error('no answer from the API server within 15 s')));
        request.on('error', reject);
        request.end(body === undefined ? undefined : JSON.stringify(body));
      }),
    close: () => agent.destroy(),
  };
}

/** The body as JSON; undefined for an empty or plain-text one (a 404 for an unserved version is "404 page not found"). */
function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
