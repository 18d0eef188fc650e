/**
 * Plain reads from the API server by path, for any resource without knowing
 * its kind: one object (404 is "absent", not an error) and paged lists. The
 * credentials come from the handlers' KubeConfig (`ctx.kube.config`).
 */
import https from 'node:https';
import type { KubeClient, KubernetesObject } from '../contract.js';
import { resourceKey, resourcePath, type CachedResource } from './cached-resource.js';

const LIST_PAGE_SIZE = 500;
const READ_TIMEOUT_MS = 30_000;

export interface ObjectList {
  readonly items: KubernetesObject[];
  readonly resourceVersion: string;
}

/** A failed read, with the API server's status code and message. */
export class ApiReadError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiReadError';
  }
}

export class ApiReader {
  constructor(private readonly kube: KubeClient) {}

  /** The object, or undefined when the API server says 404. */
  async get(resource: CachedResource, namespace: string | undefined, name: string, signal?: AbortSignal): Promise<KubernetesObject | undefined> {
    const { status, body } = await this.request(resourcePath(resource, namespace, name), signal);
    if (status === 404) return undefined;
    if (status !== 200) throw failure(status, body, `get ${resourceKey(resource)} ${namespace ? `${namespace}/` : ''}${name}`);
    return body as KubernetesObject;
  }

  /** Every object (all pages), each with apiVersion and kind set as a single GET would return it. */
  async list(resource: CachedResource, namespace?: string): Promise<ObjectList> {
    const items: KubernetesObject[] = [];
    let resourceVersion: string;
    let continueToken: string | undefined;
    do {
      const query = new URLSearchParams({ limit: String(LIST_PAGE_SIZE), ...(continueToken && { continue: continueToken }) });
      const { status, body } = await this.request(`${resourcePath(resource, namespace)}?${query.toString()}`);
      if (status !== 200) throw failure(status, body, `list ${resourceKey(resource)}`);
      const list = body as { kind?: string; apiVersion?: string; items?: KubernetesObject[]; metadata?: { resourceVersion?: string; continue?: string } };
      const kind = list.kind?.replace(/List$/, '');
      for (const item of list.items ?? []) items.push({ apiVersion: list.apiVersion, kind, ...item });
      resourceVersion = list.metadata?.resourceVersion ?? '';
      continueToken = list.metadata?.continue || undefined;
    } while (continueToken);
    return { items, resourceVersion };
  }

  private async request(urlPath: string, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
    const cluster = this.kube.config.getCurrentCluster();
    if (!cluster) throw new Error('no current cluster in the Kubernetes client configuration');
    const url = new URL(cluster.server.replace(/\/$/, '') + urlPath);
    const options: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' }, timeout: READ_TIMEOUT_MS, signal };
    await this.kube.config.applyToHTTPSOptions(options);
    return new Promise((resolve, reject) => {
      const req = https.request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: { message: text.slice(0, 200) } });
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer from the API server within ${READ_TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.end();
    });
  }
}

function failure(status: number, body: unknown, what: string): ApiReadError {
  const message = (body as { message?: unknown } | undefined)?.message;
  return new ApiReadError(status, `${what}: HTTP ${status}${typeof message === 'string' ? `: ${message}` : ''}`);
}
