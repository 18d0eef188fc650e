/**
 * GET requests to the API server with one set of ConnectionSettings: one
 * keep-alive agent carrying the TLS settings, the bearer token (re-read as it
 * rotates) on every request. Deliberately small, and free of
 * @kubernetes/client-node, whose loading costs ~80 MiB of RSS: this is what
 * the object cache uses.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ConnectionSettings } from './connection-settings.js';
import { loadConnectionSettings, type Environment } from './load-settings.js';

export interface GetOptions {
  readonly signal?: AbortSignal;
  /** Fail when the connection is silent this long: before the response starts, or between two chunks of its body. */
  readonly idleTimeoutMs: number;
}

export interface JsonRequestOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  readonly idleTimeoutMs: number;
}

export interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
}

/** No data from the API server for `idleTimeoutMs`: the connection is presumed dead. */
export class IdleTimeout extends Error {
  constructor(idleTimeoutMs: number) {
    super(`no data from the API server for ${idleTimeoutMs / 1000} s`);
    this.name = 'IdleTimeout';
  }
}

export class ApiConnection {
  private readonly base: string;
  private readonly transport: typeof https | typeof http;
  private readonly agent: https.Agent | http.Agent;

  constructor(readonly settings: ConnectionSettings) {
    let url: URL;
    try {
      url = new URL(settings.server);
    } catch {
      throw new Error(`${settings.source}: server ${JSON.stringify(settings.server)} is not a URL; expected e.g. https://127.0.0.1:6443`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${settings.source}: server ${settings.server} must be an https:// URL`);
    this.base = settings.server.replace(/\/+$/, '');
    this.transport = url.protocol === 'https:' ? https : http;
    this.agent =
      url.protocol === 'https:'
        ? new https.Agent({
            keepAlive: true,
            ca: settings.ca,
            cert: settings.clientCertificate,
            key: settings.clientKey,
            rejectUnauthorized: !settings.insecureSkipTlsVerify,
            servername: settings.tlsServerName,
          })
        : new http.Agent({ keepAlive: true });
  }

  /** KUBECONFIG, ~/.kube/config or the in-cluster ServiceAccount, as client-node's loadFromDefault finds them. */
  static fromEnvironment(environment?: Environment): ApiConnection {
    return new ApiConnection(loadConnectionSettings(environment));
  }

  /** The response, whatever its status; its body is the caller's to read (or discard). */
  get(urlPath: string, { signal, idleTimeoutMs }: GetOptions): Promise<IncomingMessage> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = this.settings.token?.current();
    if (token) headers.Authorization = `Bearer ${token}`;
    return new Promise((resolve, reject) => {
      let response: IncomingMessage | undefined;
      const req = this.transport.request(`${this.base}${urlPath}`, { method: 'GET', agent: this.agent, headers, signal }, (res) => {
        response = res;
        if (res.statusCode === 401) this.settings.token?.rejected();
        resolve(res);
      });
      req.setTimeout(idleTimeoutMs, () => {
        const error = new IdleTimeout(idleTimeoutMs);
        if (response) response.destroy(error);
        else req.destroy(error);
      });
      req.on('error', reject);
      req.end();
    });
  }

  /**
   * One JSON request (PUT, POST, PATCH, GET) and its whole answer; `contentType` for PATCH bodies. Statuses are
   * the caller's to judge: 404 and 409 are answers, not failures, to the certificate issuer.
   */
  async json(method: string, urlPath: string, { body, contentType = 'application/json', idleTimeoutMs }: JsonRequestOptions): Promise<JsonResponse> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = this.settings.token?.current();
    if (token) headers.Authorization = `Bearer ${token}`;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) Object.assign(headers, { 'Content-Type': contentType, 'Content-Length': String(payload.length) });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = this.transport.request(`${this.base}${urlPath}`, { method, agent: this.agent, headers }, resolve);
      req.setTimeout(idleTimeoutMs, () => req.destroy(new IdleTimeout(idleTimeoutMs)));
      req.on('error', reject);
      req.end(payload);
    });
    if (response.statusCode === 401) this.settings.token?.rejected();
    const text = await readText(response);
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: response.statusCode ?? 0, body: parsed };
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** The whole body as text. */
export async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
