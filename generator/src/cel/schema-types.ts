/**
 * A resource's structural OpenAPI v3 schema as CEL types, the way the API
 * server declares them for type-checking admission policy expressions
 * (k8s.io/apiserver pkg/cel/common SchemaDeclType): objects with properties
 * become object types named by their path (`Object.spec.resources`), so that a
 * misspelt field is a compile error; additionalProperties become maps, items
 * lists, int-or-string and preserved unknown fields dyn; date-time and
 * duration strings timestamps and durations. `metadata` is ObjectMeta.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { checkOnly } from './library.js';

/** The parts of a structural schema that decide a CEL type. */
export interface StructuralSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, StructuralSchema>>;
  readonly additionalProperties?: StructuralSchema | boolean;
  readonly items?: StructuralSchema;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
}

const OBJECT_META: Readonly<Record<string, string>> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int',
  creationTimestamp: 'google.protobuf.Timestamp',
  deletionTimestamp: 'google.protobuf.Timestamp',
  deletionGracePeriodSeconds: 'int',
  labels: 'map<string, string>',
  annotations: 'map<string, string>',
  finalizers: 'list<string>',
  ownerReferences: 'list<dyn>',
  managedFields: 'list<dyn>',
};
export const OBJECT_META_TYPE = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The fields of the object types declared in each environment, by type name: cel-js keeps its own private. */
const declaredFields = new WeakMap<Environment, ReadonlyMap<string, Readonly<Record<string, string>>>>();

/** The object types `declareSchemaTypes` declared in `env`, by name, with their fields' types. */
export function declaredObjectTypes(env: Environment): ReadonlyMap<string, Readonly<Record<string, string>>> {
  return declaredFields.get(env) ?? new Map();
}

/**
 * Registers the types of `schema` under `root` (e.g. "Object") in `env` and
 * returns the CEL type of the root: a type name, or a type expression like
 * `map<string, dyn>`.
 */
export function declareSchemaTypes(env: Environment, root: string, schema: StructuralSchema): string {
  const registered = new Set<string>();
  const declare = (name: string, fields: Readonly<Record<string, string>>) => {
    if (registered.has(name)) return;
    registered.add(name);
    env.registerType(name, { fields });
    declaredFields.set(env, new Map([...(declaredFields.get(env) ?? []), [name, fields]]));
    // cel-go compares two objects of one type (`object.spec == oldObject.spec`); cel-js needs the overload declared (it adds !=).
    // Names of list items and map values (`Object.spec.ports.@items`) are not valid in a signature: those stay undeclared.
    if (name.includes('@')) return;
    env.registerOperator(`${name} == ${name}`, checkOnly);
    // cel-go lets null compare with an object type (`oldObject == null` on CREATE).
    env.registerOperator(`${name} == null`, checkOnly);
  };
  const typeOf = (node: StructuralSchema, path: string, atRoot: boolean): string => {
    if (node['x-kubernetes-int-or-string']) return 'dyn';
    if (node.type === undefined && node['x-kubernetes-preserve-unknown-fields']) return 'dyn';
    switch (node.type) {
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'string':
        return node.format === 'date-time' ? 'google.protobuf.Timestamp' : node.format === 'duration' ? 'google.protobuf.Duration' : node.format === 'byte' ? 'bytes' : 'string';
      case 'array':
        return `list<${node.items ? typeOf(node.items, `${path}.@items`, false) : 'dyn'}>`;
      case 'object':
        return objectType(node, path, atRoot);
      default:
        return 'dyn';
    }
  };
  const objectType = (node: StructuralSchema, path: string, atRoot: boolean): string => {
    const properties = node.properties ?? {};
    const additional = node.additionalProperties;
    if (Object.keys(properties).length === 0) {
      if (typeof additional === 'object') return `map<string, ${typeOf(additional, `${path}.@additionalProperties`, false)}>`;
      if (node['x-kubernetes-preserve-unknown-fields'] || additional === true) return 'dyn';
    }
    if (node['x-kubernetes-preserve-unknown-fields']) return 'dyn';
    const fields: Record<string, string> = {};
    for (const key of Object.keys(properties).sort()) {
      fields[key] = key === 'metadata' && (atRoot || node['x-kubernetes-embedded-resource']) ? objectMeta() : typeOf(properties[key]!, `${path}.${key}`, false);
    }
    if (node['x-kubernetes-embedded-resource']) {
      const embedded: Record<string, string> = { apiVersion: 'string', kind: 'string', metadata: objectMeta() };
      for (const [key, type] of Object.entries(embedded)) if (!Object.hasOwn(fields, key)) fields[key] = type;
    }
    declare(path, fields);
    return path;
  };
  const objectMeta = () => {
    declare(OBJECT_META_TYPE, { ...OBJECT_META });
    return OBJECT_META_TYPE;
  };
  return typeOf({ ...schema, type: schema.type ?? 'object' }, root, true);
}
