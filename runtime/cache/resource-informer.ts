/**
 * One resource kept in memory by @kubernetes/client-node's ListWatch (list,
 * then watch from the list's resourceVersion; relist on 410 Gone). ListWatch
 * gives up on any other error — an API server restart, a refused connection —
 * so this restarts it with a capped backoff, and tracks whether what it holds
 * is current: `fresh` is false from the first error until a list/watch has
 * been re-established, and readers go to the API server meanwhile.
 */
import type { ListWatch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeClient, KubernetesObject } from '../contract.js';
import { ApiReader } from './api-reader.js';
import { resourceKey, resourcePath, type CachedResource } from './cached-resource.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

export class ResourceInformer {
  private synced = false;
  private fresh = false;
  private errors = 0;
  private lastError: string | undefined;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  private constructor(
    readonly resource: CachedResource,
    private readonly listWatch: ListWatch<KubernetesObject>,
    private readonly log: Logger,
  ) {
    listWatch.on('add', withoutManagedFields);
    listWatch.on('update', withoutManagedFields);
    listWatch.on('error', (error: unknown) => this.failed(error));
  }

  static async create(resource: CachedResource, kube: KubeClient, log: Logger): Promise<ResourceInformer> {
    const { ListWatch, Watch } = await import('@kubernetes/client-node');
    const reader = new ApiReader(kube);
    const list = async () => {
      const { items, resourceVersion } = await reader.list(resource);
      for (const item of items) withoutManagedFields(item);
      return { items, metadata: { resourceVersion } };
    };
    const listWatch = new ListWatch<KubernetesObject>(resourcePath(resource), new Watch(kube.config), list, false);
    return new ResourceInformer(resource, listWatch, log.child({ cache: resourceKey(resource) }));
  }

  /** Lists and starts watching; returns at once, keeps retrying until stop(). */
  start(): void {
    void this.connect();
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
    return this.listWatch.get(name, namespace);
  }

  list(namespace?: string): KubernetesObject[] {
    return [...this.listWatch.list(namespace)];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.listWatch.stop();
  }

  private async connect(): Promise<void> {
    const errorsBefore = this.errors;
    try {
      await this.listWatch.start();
    } catch (error) {
      this.failed(error);
    }
    if (this.stopped || this.errors !== errorsBefore) return;
    if (!this.fresh) this.log.info({ objects: this.listWatch.list().length }, this.synced ? 'cache watch re-established' : 'cache synced');
    this.synced = true;
    this.fresh = true;
    this.lastError = undefined;
    this.retryMs = FIRST_RETRY_MS;
  }

  private failed(error: unknown): void {
    this.errors++;
    this.fresh = false;
    this.lastError = error instanceof Error ? error.message : String(error);
    if (this.stopped || this.retryTimer !== undefined) return;
    this.log.warn({ retryInMs: this.retryMs }, `cache list/watch failed: ${this.lastError}`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }
}

/** Handlers never need managedFields; informers commonly drop them (controller-runtime's TransformStripManagedFields). */
function withoutManagedFields(object: KubernetesObject): void {
  if (object.metadata) delete (object.metadata as { managedFields?: unknown }).managedFields;
}
