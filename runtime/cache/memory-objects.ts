/**
 * Objects held in memory as `ctx.cache`'s source, for handler tests: keyed like
 * kubectl names resources (`profiles.shaper.io`, `configmaps`). An Error in
 * place of the objects makes every read of that resource fail with it, as an
 * unreachable API server would.
 */
import { cloneJson } from '../webhook/admission/json-value.js';
import type { KubernetesObject } from '../webhook/contract.js';
import { resourceKey, type CachedResource } from './cached-resource.js';
import type { ObjectSource } from './object-source.js';

export class MemoryObjects implements ObjectSource {
  constructor(private readonly objects: Readonly<Record<string, readonly KubernetesObject[] | Error>>) {}

  async get(resource: CachedResource, namespace: string | undefined, name: string): Promise<KubernetesObject | undefined> {
    const found = this.of(resource).find((object) => object.metadata?.name === name && (object.metadata.namespace || undefined) === namespace);
    return found && cloneJson(found);
  }

  async list(resource: CachedResource, namespace: string | undefined): Promise<KubernetesObject[]> {
    return cloneJson(this.of(resource).filter((object) => namespace === undefined || object.metadata?.namespace === namespace));
  }

  private of(resource: CachedResource): readonly KubernetesObject[] {
    const objects = this.objects[resourceKey(resource)] ?? [];
    if (objects instanceof Error) throw objects;
    return objects;
  }
}
