/**
 * Plain reads from the API server by path, for any resource without knowing
 * its kind: one object (404 is "absent", not an error) and paged lists, over
 * the object cache's own ApiConnection.
 */
import type { KubernetesObject } from '../webhook/contract.js';
import { readText, type ApiConnection } from '../kube/api-connection.js';
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
  constructor(private readonly connection: ApiConnection) {}

  /** The object, or undefined when the API server says 404. */
  async get(resource: CachedResource, namespace: string | undefined, name: string, signal?: AbortSignal): Promise<KubernetesObject | undefined> {
    const { status, body } = await this.request(resourcePath(resource, namespace, name), signal);
    if (status === 404) return undefined;
    if (status !== 200) throw readFailure(status, body, `get ${resourceKey(resource)} ${namespace ? `${namespace}/` : ''}${name}`);
    return body as KubernetesObject;
  }

  /** Every object (all pages), each with apiVersion and kind set as a single GET would return it. */
  async list(resource: CachedResource, namespace?: string, signal?: AbortSignal): Promise<ObjectList> {
    const items: KubernetesObject[] = [];
    let resourceVersion: string;
    let continueToken: string | undefined;
    do {
      const query = new URLSearchParams({ limit: String(LIST_PAGE_SIZE), ...(continueToken && { continue: continueToken }) });
      const { status, body } = await this.request(`${resourcePath(resource, namespace)}?${query.toString()}`, signal);
      if (status !== 200) throw readFailure(status, body, `list ${resourceKey(resource)}`);
      const list = body as { kind?: string; apiVersion?: string; items?: KubernetesObject[]; metadata?: { resourceVersion?: string; continue?: string } };
      const kind = list.kind?.replace(/List$/, '');
      for (const item of list.items ?? []) items.push({ apiVersion: list.apiVersion, kind, ...item });
      resourceVersion = list.metadata?.resourceVersion ?? '';
      continueToken = list.metadata?.continue || undefined;
    } while (continueToken);
    return { items, resourceVersion };
  }

  private async request(urlPath: string, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
    const response = await this.connection.get(urlPath, { signal, idleTimeoutMs: READ_TIMEOUT_MS });
    const text = await readText(response);
    const status = response.statusCode ?? 0;
    try {
      return { status, body: text === '' ? undefined : JSON.parse(text) };
    } catch {
      return { status, body: { message: text.slice(0, 200) } };
    }
  }
}

/** The API server's answer as an error: `<what>: HTTP <status>: <its message>`. */
export function readFailure(status: number, body: unknown, what: string): ApiReadError {
  const message = (body as { message?: unknown } | undefined)?.message;
  return new ApiReadError(status, `${what}: HTTP ${status}${typeof message === 'string' ? `: ${message}` : ''}`);
}
