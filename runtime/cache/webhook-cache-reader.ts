/** `ctx.cache` for one webhook: reads only what its `cache` option declares, so the chart's RBAC and the informers cover every read. */
import type { CacheReader, KubernetesObject, ReadOptions } from '../webhook/contract.js';
import type { ResolvedWebhook } from '../webhook/options/types.js';
import { resourceKey, sameResource, type CachedResource } from './cached-resource.js';
import type { ObjectSource } from './object-source.js';

export class WebhookCacheReader implements CacheReader {
  constructor(
    private readonly source: ObjectSource,
    private readonly webhook: ResolvedWebhook,
    private readonly signal: () => AbortSignal,
  ) {}

  async get<T extends object = KubernetesObject>(resource: CachedResource, namespace: string | undefined, name: string, options: ReadOptions = {}): Promise<T | undefined> {
    this.requireDeclared(resource);
    return (await this.source.get(resource, namespace || undefined, name, options, this.signal())) as T | undefined;
  }

  async list<T extends object = KubernetesObject>(resource: CachedResource, namespace?: string, options: ReadOptions = {}): Promise<T[]> {
    this.requireDeclared(resource);
    return (await this.source.list(resource, namespace || undefined, options)) as T[];
  }

  private requireDeclared(resource: CachedResource): void {
    if (this.webhook.cache.some((declared) => sameResource(declared, resource))) return;
    const entry = `{ group: ${JSON.stringify(resource.group)}, version: ${JSON.stringify(resource.version)}, resource: ${JSON.stringify(resource.resource)} }`;
    throw new Error(
      `ctx.cache: ${resourceKey(resource)} ${resource.version} is not in the cache option of @Webhook ${this.webhook.path}: add ${entry} to it, then run shaper-gen manifests (the chart's RBAC)`,
    );
  }
}
