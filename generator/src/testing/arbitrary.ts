/**
 * fast-check arbitraries from a CRD version's structural schema: objects the
 * API server would store, with every field (each optional one present in
 * some objects and absent in others), every enum value, bounds of numbers,
 * lengths and item counts, patterns, int-or-string, nullable, maps and
 * fields that keep unknown content. A kind's `metadata` gets what a
 * conversion must carry: name, namespace, labels and annotations.
 */
import fc from 'fast-check';
import type { Schema } from '../crd/types.js';

/** How many entries a generated list or map has at most, where the schema does not say. */
const MAX_ENTRIES = 3;
/** Deeper than this, a field that keeps unknown content holds a scalar. */
const MAX_UNKNOWN_DEPTH = 2;

/** A kind's object: apiVersion and kind as given, metadata as a conversion sees it, the rest from the schema. */
export function arbitraryObject(schema: Schema, apiVersion: string, kind: string): fc.Arbitrary<Record<string, unknown>> {
  const { apiVersion: _version, kind: _kind, metadata: _metadata, ...own } = schema.properties ?? {};
  const rest = arbitraryFromSchema({ ...schema, properties: own, required: (schema.required ?? []).filter((name) => name in own) }) as fc.Arbitrary<Record<string, unknown>>;
  return fc.tuple(rest, METADATA).map(([fields, metadata]) => ({ apiVersion, kind, metadata, ...fields }));
}

const DNS_LABEL = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
// Labels and annotations are absent or not empty: the API server omits an empty map (omitempty).
const METADATA = fc.record(
  {
    name: DNS_LABEL,
    namespace: DNS_LABEL,
    labels: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/), { minKeys: 1, maxKeys: MAX_ENTRIES }),
    annotations: fc.dictionary(fc.stringMatching(/^example\.com\/[a-z]{1,8}$/), fc.string(), { minKeys: 1, maxKeys: MAX_ENTRIES }),
  },
  { requiredKeys: ['name'] },
);

/** Values the schema allows. */
export function arbitraryFromSchema(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const value = nonNull(schema, depth);
  return schema.nullable ? fc.option(value, { nil: null }) : value;
}

function nonNull(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema['x-kubernetes-int-or-string']) return fc.oneof(integer(schema), fc.stringMatching(/^[0-9]{1,4}(m|Mi|Gi)?$/));
  switch (schema.type) {
    case 'string':
      return string(schema);
    case 'integer':
      return integer(schema);
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }).filter((n) => inBounds(n, schema));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return array(schema, depth);
    case 'object':
      return object(schema, depth);
    default:
      return unknownValue(depth);
  }
}

function string(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, minLength + 40);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((text) => [...text].length >= minLength && [...text].length <= (schema.maxLength ?? Infinity));
  return fc.string({ minLength, maxLength, unit: 'grapheme-ascii' });
}

function integer(schema: Schema): fc.Arbitrary<number> {
  const min = Math.max((schema.minimum ?? -1e9) + (schema.exclusiveMinimum ? 1 : 0), Number.MIN_SAFE_INTEGER);
  const max = Math.min((schema.maximum ?? 1e9) - (schema.exclusiveMaximum ? 1 : 0), Number.MAX_SAFE_INTEGER);
  const step = schema.multipleOf;
  if (step && Number.isInteger(step)) return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((n) => n * step);
  return fc.integer({ min, max });
}

function inBounds(n: number, schema: Schema): boolean {
  if (schema.minimum !== undefined && (schema.exclusiveMinimum ? n <= schema.minimum : n < schema.minimum)) return false;
  if (schema.maximum !== undefined && (schema.exclusiveMaximum ? n >= schema.maximum : n > schema.maximum)) return false;
  return true;
}

function array(schema: Schema, depth: number): fc.Arbitrary<unknown[]> {
  const items = schema.items ? arbitraryFromSchema(schema.items, depth + 1) : unknownValue(depth + 1);
  const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? MAX_ENTRIES, (schema.minItems ?? 0) + MAX_ENTRIES) };
  const keys = schema['x-kubernetes-list-map-keys'];
  // A set holds each value once, a map each key once: the API server refuses duplicates.
  if (schema['x-kubernetes-list-type'] === 'set') return fc.uniqueArray(items, { ...constraints, selector: (item) => JSON.stringify(item) });
  if (keys) return fc.uniqueArray(items, { ...constraints, selector: (item) => JSON.stringify(keys.map((key) => (item as Record<string, unknown>)[key])) });
  return fc.array(items, constraints);
}

function object(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.properties) {
    const fields = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, arbitraryFromSchema(property, depth + 1)]));
    return fc.record(fields, { requiredKeys: schema.required ?? [] });
  }
  if (schema.additionalProperties) {
    return fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9.-]{0,10}$/), arbitraryFromSchema(schema.additionalProperties, depth + 1), {
      minKeys: schema.minProperties ?? 0,
      maxKeys: schema.maxProperties ?? MAX_ENTRIES,
    });
  }
  const scalar = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  return fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), depth >= MAX_UNKNOWN_DEPTH ? scalar : unknownValue(depth + 1), { maxKeys: MAX_ENTRIES });
}

/** What a field that keeps unknown content (or has no type) may hold: JSON of a little depth. */
function unknownValue(depth: number): fc.Arbitrary<unknown> {
  const scalar = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  if (depth >= MAX_UNKNOWN_DEPTH) return scalar;
  return fc.oneof(scalar, fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), scalar, { maxKeys: MAX_ENTRIES }));
}
