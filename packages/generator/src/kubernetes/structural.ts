/**
 * A Kubernetes API definition expanded into a structural schema, as
 * controller-gen writes a field of a Kubernetes type into a CRD: every
 * `$ref` inlined; Time and MicroTime `date-time` strings; IntOrString and
 * Quantity `x-kubernetes-int-or-string` (Quantity with controller-gen's
 * pattern); RawExtension and FieldsV1 objects that keep unknown fields;
 * list types, map keys and map types as the API declares them; an embedded
 * ObjectMeta (a PodTemplateSpec's metadata) `type: object` only, or expanded
 * in full where a CEL type needs its fields. The field's own description
 * wins over its type's, as a Go doc comment does.
 *
 * Defaults: the published OpenAPI gives every required non-pointer field its
 * Go zero value as default (`""`, `0`, `false`, `{}`); controller-gen writes
 * only the defaults Kubernetes' types declare (`+default=`), so zero values
 * are dropped, except on list-map keys that are not required, which a CRD
 * needs defaulted (LocalObjectReference's name: `default: ""`, as
 * controller-gen writes it).
 */
import type { Schema } from '../crd/types.js';
import { apiDefinition, type ApiSchema } from './api-schemas.js';

export interface ExpandOptions {
  /** Keep the API's descriptions (a CRD's documentation; a CEL type needs none). */
  readonly descriptions: boolean;
  /** An embedded ObjectMeta: `type: object` (left to the API server, as controller-gen writes it) or every field (for CEL types). */
  readonly objectMeta: 'object' | 'full';
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const OBJECT_META = `${META}ObjectMeta`;
const INT_OR_STRING: Schema = { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
/** What controller-gen writes for resource.Quantity. */
const QUANTITY: Schema = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  'x-kubernetes-int-or-string': true,
};
const UNKNOWN_FIELDS: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
/** Definitions whose schema is a JSON type of their own rather than their Go struct's. */
const SPECIAL: Readonly<Record<string, Schema>> = {
  [`${META}Time`]: { type: 'string', format: 'date-time' },
  [`${META}MicroTime`]: { type: 'string', format: 'date-time' },
  [`${META}FieldsV1`]: UNKNOWN_FIELDS,
  [`${META}Patch`]: UNKNOWN_FIELDS,
  'io.k8s.apimachinery.pkg.runtime.RawExtension': UNKNOWN_FIELDS,
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': INT_OR_STRING,
  'io.k8s.apimachinery.pkg.api.resource.Quantity': QUANTITY,
};
const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

const cache = new Map<string, Schema>();

/**
 * The structural schema of a definition (`io.k8s.api.core.v1.PodSpec`);
 * undefined when the shipped schemas do not hold it. The result is shared:
 * copy it before changing it.
 */
export function expandDefinition(name: string, options: ExpandOptions): Schema | undefined {
  return apiDefinition(name) && new Expander(options).definition(name);
}

class Expander {
  private readonly stack: string[] = [];

  constructor(private readonly options: ExpandOptions) {}

  /** A definition's schema; `mapKeys`: the fields that key the list it is an item of (they keep their defaults). */
  definition(name: string, mapKeys: readonly string[] = []): Schema {
    const special = SPECIAL[name];
    if (special) return this.withDescription(special, apiDefinition(name)?.description);
    if (name === OBJECT_META && this.options.objectMeta === 'object') return { type: 'object' };
    const key = [name, this.options.descriptions, this.options.objectMeta, ...mapKeys].join('\0');
    const cached = cache.get(key);
    if (cached) return cached;
    // No GA definition contains itself; were one to, the inner occurrence keeps what is sent, as a CRD must.
    if (this.stack.includes(name)) return UNKNOWN_FIELDS;
    this.stack.push(name);
    try {
      const schema = this.schema(apiDefinition(name) ?? {}, mapKeys);
      cache.set(key, schema);
      return schema;
    } finally {
      this.stack.pop();
    }
  }

  private schema(api: ApiSchema, mapKeys: readonly string[] = [], isMapKey = false): Schema {
    if (api.$ref !== undefined) {
      const referenced = this.definition(api.$ref, mapKeys);
      const withDefault = this.keepDefault(api.default, isMapKey) ? { ...referenced, default: api.default } : referenced;
      return this.withDescription(withDefault, api.description);
    }
    const schema = this.keywords(api, isMapKey);
    if (api.items) schema.items = this.schema(api.items, api['x-kubernetes-list-map-keys'] ?? []);
    if (api.properties) {
      const required = new Set(api.required ?? []);
      const keys = new Set(mapKeys.filter((key) => !required.has(key)));
      schema.properties = Object.fromEntries(Object.entries(api.properties).map(([field, property]) => [field, this.schema(property, [], keys.has(field))]));
    }
    if (typeof api.additionalProperties === 'object') schema.additionalProperties = this.schema(api.additionalProperties);
    else if (api.additionalProperties === true && !api.properties) schema['x-kubernetes-preserve-unknown-fields'] = true;
    return schema;
  }

  /** What a schema says of its own value, not of what it contains. */
  private keywords(api: ApiSchema, isMapKey: boolean): Schema {
    const schema: Schema = {};
    const type = api.type ?? (api.properties ? 'object' : undefined);
    if (type !== undefined && SCHEMA_TYPES.has(type)) schema.type = type as NonNullable<Schema['type']>;
    if (api.format !== undefined) schema.format = api.format;
    if (this.options.descriptions && api.description !== undefined) schema.description = api.description;
    if (api.enum) schema.enum = [...api.enum];
    if (this.keepDefault(api.default, isMapKey)) schema.default = api.default;
    if (api['x-kubernetes-list-type']) schema['x-kubernetes-list-type'] = api['x-kubernetes-list-type'];
    if (api['x-kubernetes-list-map-keys']) schema['x-kubernetes-list-map-keys'] = [...api['x-kubernetes-list-map-keys']];
    if (api['x-kubernetes-map-type']) schema['x-kubernetes-map-type'] = api['x-kubernetes-map-type'];
    if (api.required?.length) schema.required = [...api.required];
    return schema;
  }

  private keepDefault(value: unknown, isMapKey: boolean): boolean {
    if (value === undefined) return false;
    if (isMapKey) return true;
    const zero = value === '' || value === 0 || value === false || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
    return !zero;
  }

  private withDescription(schema: Schema, description: string | undefined): Schema {
    if (!this.options.descriptions || description === undefined) return schema;
    return { ...schema, description };
  }
}
