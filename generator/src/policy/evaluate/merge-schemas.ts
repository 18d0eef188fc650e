/**
 * What an ApplyConfiguration is merged by in the engine, as the API server's
 * type converters have it: the built-in kinds' schemas the generator ships
 * (handed to the engine once per process) and a custom resource's CRD.
 */
import { setApiSchemas } from '../../cel/engine/index.js';
import { apiSchemas } from '../../kubernetes/api-schemas.js';

const SCHEMAS_SET = Symbol.for('shaper-gen.cel-engine.api-schemas');
const registry = globalThis as typeof globalThis & { [SCHEMAS_SET]?: boolean };

/** The engine knows the built-in kinds' schemas (on globalThis, as the engine itself is). */
export function ensureBuiltinSchemas(): void {
  if (registry[SCHEMAS_SET]) return;
  setApiSchemas(apiSchemas());
  registry[SCHEMAS_SET] = true;
}

/** Whether the shipped schemas define the kind at that group/version. */
export function builtinServes(group: string, version: string, kind: string): boolean {
  return Object.entries(apiSchemas().resources).some(([resource, definition]) => resource.startsWith(`${group}/${version}/`) && definition.endsWith(`.${kind}`));
}

interface Kind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The smallest CRD that serves a kind with the given openAPIV3Schema (what runPolicy's `schema` option stands for). */
export function crdFor(kind: Kind, resource: string, namespaced: boolean, openAPIV3Schema: unknown): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource}.${kind.group}` },
    spec: {
      group: kind.group,
      names: { kind: kind.kind, plural: resource, singular: kind.kind.toLowerCase(), listKind: `${kind.kind}List` },
      scope: namespaced ? 'Namespaced' : 'Cluster',
      versions: [{ name: kind.version, served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}
