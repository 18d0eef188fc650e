/** An informer's objects by namespace and name; a relist replaces them all at once. */
import type { KubernetesObject } from '../webhook/contract.js';

type Namespaces = Map<string, Map<string, KubernetesObject>>;

export class ObjectStore {
  private namespaces: Namespaces = new Map();

  /** Exactly these objects from now on: ones missing from `objects` are gone. */
  replace(objects: Iterable<KubernetesObject>): void {
    const next: Namespaces = new Map();
    for (const object of objects) put(next, object);
    this.namespaces = next;
  }

  put(object: KubernetesObject): void {
    put(this.namespaces, object);
  }

  remove(object: KubernetesObject): void {
    const namespace = namespaceOf(object);
    const names = this.namespaces.get(namespace);
    names?.delete(object.metadata?.name ?? '');
    if (names?.size === 0) this.namespaces.delete(namespace);
  }

  get(namespace: string | undefined, name: string): KubernetesObject | undefined {
    return this.namespaces.get(namespace ?? '')?.get(name);
  }

  /** One namespace's objects, or every object when `namespace` is undefined or empty. */
  list(namespace?: string): KubernetesObject[] {
    if (namespace) return [...(this.namespaces.get(namespace)?.values() ?? [])];
    return [...this.namespaces.values()].flatMap((names) => [...names.values()]);
  }

  get size(): number {
    let count = 0;
    for (const names of this.namespaces.values()) count += names.size;
    return count;
  }
}

function namespaceOf(object: KubernetesObject): string {
  return object.metadata?.namespace ?? '';
}

function put(namespaces: Namespaces, object: KubernetesObject): void {
  const namespace = namespaceOf(object);
  let names = namespaces.get(namespace);
  if (!names) namespaces.set(namespace, (names = new Map<string, KubernetesObject>()));
  names.set(object.metadata?.name ?? '', object);
}
