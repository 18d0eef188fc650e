/**
 * Where `ctx.cache` reads come from: the server's informers, or objects held
 * in memory (`runWebhook(..., { objects })` in handler tests). The per-webhook
 * reader in front of it checks that the webhook declared the resource.
 */
import type { KubernetesObject, ReadOptions } from '../webhook/contract.js';
import type { CachedResource } from './cached-resource.js';

export interface ObjectSource {
  get(resource: CachedResource, namespace: string | undefined, name: string, options: ReadOptions, signal: AbortSignal): Promise<KubernetesObject | undefined>;
  list(resource: CachedResource, namespace: string | undefined, options: ReadOptions): Promise<KubernetesObject[]>;
}
