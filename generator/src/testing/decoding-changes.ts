/**
 * Whether the API server's decoding of a custom resource (pruning, dropping
 * nulls, ObjectMeta coercion, defaulting) could change an object at all: when
 * it certainly cannot, runWebhook hands the object over without starting the
 * CEL engine (seconds per test process). Conservative: anything it is not sure
 * of (a default in the schema, a field the schema does not declare, a null, an
 * embedded resource, metadata beyond the usual fields) says "may change", and
 * the engine decides.
 */

type Schema = Readonly<Record<string, unknown>>;

interface CrdVersionObject {
  readonly name: string;
  readonly storage?: boolean;
  readonly schema?: { readonly openAPIV3Schema?: Schema };
}

const PLAIN_METADATA = new Set(['name', 'namespace', 'generateName', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'labels', 'annotations', 'finalizers']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringMap = (value: unknown) => isObject(value) && Object.values(value).every((entry) => typeof entry === 'string');

function hasDefault(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasDefault);
  if (!isObject(schema)) return false;
  return 'default' in schema || Object.values(schema).some(hasDefault);
}

function plainMetadata(metadata: unknown): boolean {
  if (metadata === undefined) return true;
  if (!isObject(metadata)) return false;
  return Object.entries(metadata).every(([key, value]) => {
    if (!PLAIN_METADATA.has(key)) return false;
    if (key === 'labels' || key === 'annotations') return isStringMap(value);
    if (key === 'finalizers') return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
    if (key === 'generation') return Number.isInteger(value);
    return typeof value === 'string';
  });
}

/** Whether pruning or dropping nulls could change `value` under `schema`. */
function mayChangeValue(schema: Schema | undefined, value: unknown): boolean {
  if (value === null) return true;
  if (!schema || schema['x-kubernetes-embedded-resource'] === true) return true;
  if (['anyOf', 'allOf', 'oneOf', 'not'].some((key) => key in schema)) return true;
  if (Array.isArray(value)) return value.some((item) => mayChangeValue(schema.items as Schema | undefined, item));
  if (!isObject(value)) return false;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const additional = isObject(schema.additionalProperties) ? (schema.additionalProperties as Schema) : undefined;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  return Object.entries(value).some(([key, field]) => {
    const fieldSchema = Object.hasOwn(properties, key) ? properties[key] : additional;
    if (fieldSchema) return mayChangeValue(fieldSchema, field);
    return !preserve;
  });
}

/** Whether `object`, as the body or as read back under `schema` (a version's), could be changed by decoding. */
function mayChangeUnder(schema: Schema | undefined, object: unknown): boolean {
  if (!schema || hasDefault(schema)) return true;
  const { apiVersion: _apiVersion, kind: _kind, metadata: _metadata, ...rootProperties } = (schema.properties ?? {}) as Record<string, Schema>;
  if (!isObject(object)) return true;
  const { apiVersion, kind, metadata, ...rest } = object;
  return typeof apiVersion !== 'string' || typeof kind !== 'string' || !plainMetadata(metadata) || mayChangeValue({ ...schema, properties: rootProperties }, rest);
}

/**
 * Whether decoding a request's `object` as `version` of the CRD, or reading its `oldObject` back (from the
 * storage version, then as `version`), could change either of them.
 */
export function decodingMayChange(versions: readonly CrdVersionObject[], version: string, object: unknown, oldObject?: unknown): boolean {
  const schemaOf = (v: CrdVersionObject | undefined) => v?.schema?.openAPIV3Schema;
  const requested = schemaOf(versions.find((v) => v.name === version));
  if (mayChangeUnder(requested, object)) return true;
  return oldObject !== undefined && (mayChangeUnder(requested, oldObject) || mayChangeUnder(schemaOf(versions.find((v) => v.storage)), oldObject));
}
