/**
 * One resource kept in memory: list (paged), then watch from the list's
 * resourceVersion, as client-go's reflector does. A watch the server ends
 * (its timeoutSeconds) is reopened from the last resourceVersion seen — an
 * event's or a bookmark's — without relisting; a resourceVersion the server
 * no longer has (410 Gone) means a relist, which replaces the objects at
 * once; a watch silent past its idle timeout is reopened like one the server
 * ended; any other failure is retried with a capped backoff. `isFresh` is
 * false from a failure until a watch is open again, and readers go to the
 * API server meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { KubernetesObject } from '../webhook/contract.js';
import { IdleTimeout, type ApiConnection } from '../kube/api-connection.js';
import { ApiReader } from './api-reader.js';
import { resourceKey, type CachedResource } from './cached-resource.js';
import { ObjectStore } from './object-store.js';
import { openWatch, ResourceVersionExpired, type WatchOptions } from './watch-stream.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;
/** A watch the server ends this soon without an event is a failure (client-go's "very short watch"), not a normal end: reopening it at once would spin. */
const SHORTEST_NORMAL_WATCH_MS = 1000;

export interface InformerOptions {
  /** Per watch request; by default random between 300 and 600 s, like client-go. */
  readonly watchTimeoutSeconds?: number;
  /** Silence after which a watch is reopened; by default WATCH_IDLE_TIMEOUT_SECONDS. */
  readonly watchIdleSeconds?: number;
}

export class ResourceInformer {
  private readonly store = new ObjectStore();
  private readonly reader: ApiReader;
  private readonly log: Logger;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  /** Where the next watch starts; undefined until listed, and after a 410 (relist first). */
  private resourceVersion: string | undefined;
  private synced = false;
  private fresh = false;
  private everWatched = false;
  /** 410s since the last established watch: the first relists at once, a repeat waits its backoff like any failure. */
  private expiredInARow = 0;
  private lastError: string | undefined;
  private retryMs = FIRST_RETRY_MS;

  constructor(
    readonly resource: CachedResource,
    private readonly connection: ApiConnection,
    log: Logger,
    private readonly options: InformerOptions = {},
  ) {
    this.reader = new ApiReader(connection);
    this.log = log.child({ cache: resourceKey(resource) });
  }

  /** Lists and starts watching; returns at once, keeps retrying until stop(). */
  start(): void {
    this.running ??= this.run();
  }

  /** The initial list has completed (once true, stays true). */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** The watch is established and no error happened since: what this holds is current up to the watch's delivery delay. */
  get isFresh(): boolean {
    return this.fresh;
  }

  /** Why it is not synced or not fresh, for readiness and logs. */
  get problem(): string | undefined {
    if (this.fresh) return undefined;
    return this.lastError ? `${this.synced ? 'watch interrupted' : 'not synced'}: ${this.lastError}` : 'not synced yet';
  }

  get(namespace: string | undefined, name: string): KubernetesObject | undefined {
    return this.store.get(namespace, name);
  }

  list(namespace?: string): KubernetesObject[] {
    return this.store.list(namespace);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined) await this.relist(signal);
        await this.watch(signal);
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() aborts it while the list or watch is awaited
        if (signal.aborted) return;
        if (error instanceof ResourceVersionExpired && this.expiredInARow++ === 0) this.expired(error);
        else await this.backOff(error, signal);
      }
    }
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const { items, resourceVersion } = await this.reader.list(this.resource, undefined, signal);
    for (const item of items) withoutManagedFields(item);
    this.store.replace(items);
    this.resourceVersion = resourceVersion;
    this.synced = true;
  }

  /** One watch, from open to its normal end; events move resourceVersion on as they are applied. */
  private async watch(signal: AbortSignal): Promise<void> {
    const watchOptions: WatchOptions = { signal, timeoutSeconds: this.options.watchTimeoutSeconds, idleTimeoutSeconds: this.options.watchIdleSeconds };
    const events = await openWatch(this.connection, this.resource, this.resourceVersion!, watchOptions);
    this.established();
    const opened = Date.now();
    let count = 0;
    try {
      for await (const event of events) {
        count++;
        if (event.type === 'ADDED' || event.type === 'MODIFIED') this.store.put(withoutManagedFields(event.object));
        else if (event.type === 'DELETED') this.store.remove(event.object);
        this.resourceVersion = event.object.metadata?.resourceVersion || this.resourceVersion;
      }
    } catch (error) {
      if (!(error instanceof IdleTimeout)) throw error;
      // Silent, not failed: reopened at once from where it was, still fresh; a connection that is really gone fails the reopening.
      this.log.debug({ resourceVersion: this.resourceVersion, events: count }, `cache watch silent (${error.message}); reopening it`);
      return;
    }
    if (count === 0 && Date.now() - opened < SHORTEST_NORMAL_WATCH_MS) throw new Error('the API server ended the watch at once, without an event');
    this.log.debug({ resourceVersion: this.resourceVersion, events: count }, 'cache watch ended; reopening it');
  }

  private established(): void {
    if (!this.fresh) this.log.info({ objects: this.store.size }, this.everWatched ? 'cache watch re-established' : 'cache synced');
    this.fresh = true;
    this.everWatched = true;
    this.expiredInARow = 0;
    this.lastError = undefined;
    this.retryMs = FIRST_RETRY_MS;
  }

  private expired(error: ResourceVersionExpired): void {
    this.fresh = false;
    this.lastError = `${error.message}; relisting`;
    this.resourceVersion = undefined;
    this.log.info(`cache relisting: ${error.message}`);
  }

  private async backOff(error: unknown, signal: AbortSignal): Promise<void> {
    if (error instanceof ResourceVersionExpired) this.resourceVersion = undefined;
    this.fresh = false;
    this.lastError = error instanceof Error ? error.message : String(error);
    this.log.warn({ retryInMs: this.retryMs }, `cache list/watch failed: ${this.lastError}`);
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    await sleep(delay, undefined, { signal, ref: false }).catch(() => undefined);
  }
}

/** Handlers never need managedFields; informers commonly drop them (controller-runtime's TransformStripManagedFields). */
function withoutManagedFields(object: KubernetesObject): KubernetesObject {
  if (object.metadata) delete (object.metadata as { managedFields?: unknown }).managedFields;
  return object;
}
