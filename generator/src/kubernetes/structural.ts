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
 * Defaults: the published OpenAPI gives a required field that is not a
 * pointer its Go zero value as default (`""`, `0`, `false`) and a struct
 * `{}`; a CRD would then default what it requires, so those are dropped, as
 * controller-gen has none. The defaults of optional scalar fields are the
 * ones Kubernetes' types declare (`+default=""` on LocalObjectReference's
 * name, `TCP` on a container port's protocol) and are kept, as controller-gen
 * writes them.
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

  definition(name: string): Schema {
    const special = SPECIAL[name];
    if (special) return this.withDescription(special, apiDefinition(name)?.description);
    if (name === OBJECT_META && this.options.objectMeta === 'object') return { type: 'object' };
    const key = [name, this.options.descriptions, this.options.objectMeta].join('\0');
    const cached = cache.get(key);
    if (cached) return cached;
    // No GA definition contains itself; were one to, the inner occurrence keeps what is sent, as a CRD must.
    if (this.stack.includes(name)) return UNKNOWN_FIELDS;
    this.stack.push(name);
    try {
      const schema = this.schema(apiDefinition(name) ?? {});
      cache.set(key, schema);
      return schema;
    } finally {
      this.stack.pop();
    }
  }

  private schema(api: ApiSchema, required = false): Schema {
    if (api.$ref !== undefined) {
      const referenced = this.definition(api.$ref);
      const withDefault = keepDefault(api.default, required) ? { ...referenced, default: api.default } : referenced;
      return this.withDescription(withDefault, api.description);
    }
    const schema = this.keywords(api, required);
    if (api.items) schema.items = this.schema(api.items);
    if (api.properties) {
      const requiredFields = new Set(api.required ?? []);
      schema.properties = Object.fromEntries(Object.entries(api.properties).map(([field, property]) => [field, this.schema(property, requiredFields.has(field))]));
    }
    if (typeof api.additionalProperties === 'object') schema.additionalProperties = this.schema(api.additionalProperties);
    else if (api.additionalProperties === true && !api.properties) schema['x-kubernetes-preserve-unknown-fields'] = true;
    return schema;
  }

  /** What a schema says of its own value, not of what it contains. */
  private keywords(api: ApiSchema, required: boolean): Schema {
    const schema: Schema = {};
    const type = api.type ?? (api.properties ? 'object' : undefined);
    if (type !== undefined && SCHEMA_TYPES.has(type)) schema.type = type as NonNullable<Schema['type']>;
    if (api.format !== undefined) schema.format = api.format;
    if (this.options.descriptions && api.description !== undefined) schema.description = api.description;
    if (api.enum) schema.enum = [...api.enum];
    if (keepDefault(api.default, required)) schema.default = api.default;
    if (api['x-kubernetes-list-type']) schema['x-kubernetes-list-type'] = api['x-kubernetes-list-type'];
    if (api['x-kubernetes-list-map-keys']) schema['x-kubernetes-list-map-keys'] = [...api['x-kubernetes-list-map-keys']];
    if (api['x-kubernetes-map-type']) schema['x-kubernetes-map-type'] = api['x-kubernetes-map-type'];
    if (api.required?.length) schema.required = [...api.required];
    return schema;
  }

  private withDescription(schema: Schema, description: string | undefined): Schema {
    if (!this.options.descriptions || description === undefined) return schema;
    return { ...schema, description };
  }
}

/** Whether a default is one Kubernetes' types declare rather than the Go zero value of a required field or a struct. */
function keepDefault(value: unknown, required: boolean): boolean {
  if (value === undefined) return false;
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return false;
  return !required || !(value === '' || value === 0 || value === false);
}
