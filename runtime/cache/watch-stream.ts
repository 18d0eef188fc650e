/**
 * One watch request: the API server's events for a resource after a
 * resourceVersion, with bookmarks, until the server ends it (timeoutSeconds)
 * or it fails. A resourceVersion the server no longer has (410 Gone, as the
 * HTTP status or as an ERROR event) is ResourceVersionExpired: the caller must relist.
 */
import type { KubernetesObject } from '../webhook/contract.js';
import { readText, type ApiConnection } from '../kube/api-connection.js';
import { ApiReadError, readFailure } from './api-reader.js';
import { resourceKey, resourcePath, type CachedResource } from './cached-resource.js';
import { JsonLinesDecoder } from './json-lines.js';

export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubernetesObject }
  /** Carries only metadata.resourceVersion: everything up to it has been sent. */
  | { readonly type: 'BOOKMARK'; readonly object: KubernetesObject };

/** Thrown when the server cannot send events from the requested resourceVersion (compacted, or older than its watch cache). */
export class ResourceVersionExpired extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceVersionExpired';
  }
}

/** client-go's reflector asks for a random timeout between 5 and 10 minutes, so that watches do not all end together. */
export function randomWatchTimeoutSeconds(): number {
  return 300 + Math.floor(Math.random() * 301);
}

/**
 * On a quiet resource the API server's watch cache sends a bookmark about once a minute; past this much
 * silence the connection is presumed dead (IdleTimeout). A resource served without the watch cache sends
 * nothing while nothing changes: its watch is reopened, which costs nothing.
 */
export const WATCH_IDLE_TIMEOUT_SECONDS = 90;

export interface WatchOptions {
  readonly signal?: AbortSignal;
  readonly timeoutSeconds?: number;
  readonly idleTimeoutSeconds?: number;
}

/**
 * Opens the watch: resolves once the server has accepted it (HTTP 200), with
 * its events; the iteration ends when the server ends the watch normally, and
 * fails with IdleTimeout after `idleTimeoutSeconds` without data.
 */
export async function openWatch(
  connection: ApiConnection,
  resource: CachedResource,
  resourceVersion: string,
  { signal, timeoutSeconds = randomWatchTimeoutSeconds(), idleTimeoutSeconds = WATCH_IDLE_TIMEOUT_SECONDS }: WatchOptions = {},
): Promise<AsyncIterable<WatchEvent>> {
  const query = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', resourceVersion, timeoutSeconds: String(timeoutSeconds) });
  const response = await connection.get(`${resourcePath(resource)}?${query.toString()}`, { signal, idleTimeoutMs: idleTimeoutSeconds * 1000 });
  const what = `watch ${resourceKey(resource)} from resourceVersion ${resourceVersion}`;
  if (response.statusCode !== 200) {
    const text = await readText(response);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: text.slice(0, 200) };
    }
    const failure = readFailure(response.statusCode ?? 0, body, what);
    throw response.statusCode === 410 ? new ResourceVersionExpired(failure.message) : failure;
  }
  return (async function* events() {
    const decoder = new JsonLinesDecoder();
    for await (const chunk of response) {
      for (const event of decoder.push(chunk as Buffer)) yield checked(event, what);
    }
    for (const event of decoder.end()) yield checked(event, what);
  })();
}

function checked(value: unknown, what: string): WatchEvent {
  const event = value as { type?: unknown; object?: ({ code?: unknown; message?: unknown } & KubernetesObject) | null };
  if (event.type === 'ERROR') {
    const code = typeof event.object?.code === 'number' ? event.object.code : 0;
    const message = `${what}: ${code ? `${code} ` : ''}${typeof event.object?.message === 'string' ? event.object.message : 'error event'}`;
    throw code === 410 ? new ResourceVersionExpired(message) : new ApiReadError(code, message);
  }
  if ((event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED' || event.type === 'BOOKMARK') && typeof event.object === 'object' && event.object !== null) {
    return event as WatchEvent;
  }
  throw new Error(`${what}: unexpected event ${JSON.stringify(value).slice(0, 120)}`);
}
