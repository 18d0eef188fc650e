/**
 * A mutating policy's ApplyConfiguration merged into the object as the API
 * server merges it (k8s.io/apiserver .../mutating/patch/smd.go with
 * sigs.k8s.io/structured-merge-diff's typed Merge), by the resource's
 * structural schema: fields and granular maps merged key by key, scalars
 * replaced, `x-kubernetes-list-type: set` and `map` lists merged by value or
 * by key in structured-merge-diff's order. What the API server refuses is
 * refused: a field the schema does not declare, a value of the wrong type,
 * and any change to an atomic list, map or struct (lists without a list
 * type are atomic in a CRD). Where the schema leaves the shape open
 * (x-kubernetes-preserve-unknown-fields, int-or-string objects) the merge is
 * not guessed: NotEvaluableLocally.
 */
import { NotEvaluableLocally } from '../../cel/runtime-library.js';
import type { StructuralSchema } from '../../cel/schema-types.js';

/** The structural schema with the topology markers the merge follows. */
export interface MergeSchema extends StructuralSchema {
  readonly properties?: Readonly<Record<string, MergeSchema>>;
  readonly additionalProperties?: MergeSchema | boolean;
  readonly items?: MergeSchema;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
}

/** The patch cannot be applied; the message says why, as the API server's does. */
export class ApplyConfigurationError extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = Record<string, Json>;

const STRING: MergeSchema = { type: 'string' };
/** ObjectMeta's topology (k8s.io/apimachinery metav1): what every resource's `metadata` merges by, whatever its CRD says. */
const OBJECT_META: MergeSchema = {
  type: 'object',
  properties: {
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    uid: STRING,
    resourceVersion: STRING,
    generation: { type: 'integer' },
    creationTimestamp: STRING,
    deletionTimestamp: STRING,
    deletionGracePeriodSeconds: { type: 'integer' },
    labels: { type: 'object', additionalProperties: STRING },
    annotations: { type: 'object', additionalProperties: STRING },
    finalizers: { type: 'array', items: STRING, 'x-kubernetes-list-type': 'set' },
    ownerReferences: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      items: {
        type: 'object',
        properties: { apiVersion: STRING, kind: STRING, name: STRING, uid: STRING, controller: { type: 'boolean' }, blockOwnerDeletion: { type: 'boolean' } },
      },
    },
  },
};

/** The schema of a whole object: the CRD's, with ObjectMeta's metadata and apiVersion and kind. */
export function objectSchema(schema: MergeSchema): MergeSchema {
  return { ...schema, type: 'object', properties: { ...schema.properties, apiVersion: STRING, kind: STRING, metadata: OBJECT_META } };
}

/** Only what every object has: metadata, apiVersion and kind; a change anywhere else needs the resource's schema. */
export const METADATA_ONLY_SCHEMA: MergeSchema = objectSchema({ type: 'object', properties: {} });

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const fieldPath = (path: string, key: string) => `${path}.${key}`;

function openShape(schema: MergeSchema): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true || schema['x-kubernetes-int-or-string'] === true || (schema.type === undefined && schema.properties === undefined);
}

/** The schema of an object's field, or undefined when the schema does not declare it. */
function fieldSchema(schema: MergeSchema, key: string): MergeSchema | undefined {
  if (schema.properties && Object.hasOwn(schema.properties, key)) return schema.properties[key];
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  return undefined;
}

/** The patch's values against the schema (structured-merge-diff's ObjectToTyped): undeclared fields and wrong types are errors. */
function validate(value: Json, schema: MergeSchema, path: string, errors: string[], unknown: string[]): void {
  if (value === null) return;
  if (openShape(schema)) {
    unknown.push(path || '.');
    return;
  }
  const kind = schema.type;
  const wrong = (expected: string) => errors.push(`${path}: expected ${expected}, got ${Array.isArray(value) ? 'list' : typeof value === 'object' ? 'map' : typeof value}`);
  if (kind === 'object') {
    if (!isObject(value)) return void wrong('map');
    for (const [key, item] of Object.entries(value)) {
      const inner = fieldSchema(schema, key);
      if (!inner) errors.push(`${fieldPath(path, key)}: field not declared in schema`);
      else validate(item, inner, fieldPath(path, key), errors, unknown);
    }
  } else if (kind === 'array') {
    if (!Array.isArray(value)) return void wrong('list');
    value.forEach((item, i) => schema.items && validate(item, schema.items, `${path}[${i}]`, errors, unknown));
  } else if (kind === 'string') {
    if (typeof value !== 'string') wrong('string');
  } else if (kind === 'boolean') {
    if (typeof value !== 'boolean') wrong('boolean');
  } else if (kind === 'integer') {
    if (typeof value !== 'number' || !Number.isInteger(value)) wrong('integer');
  } else if (kind === 'number' && typeof value !== 'number') wrong('number');
}

/** smd.go findAtomics: every atomic list, map or struct the patch sets, by its path. */
function atomics(value: Json, schema: MergeSchema, path: string): string[] {
  if (isObject(value) && schema.type === 'object') {
    const own = schema['x-kubernetes-map-type'] === 'atomic' ? [path] : [];
    return [...own, ...Object.entries(value).flatMap(([key, item]) => (fieldSchema(schema, key) ? atomics(item, fieldSchema(schema, key)!, fieldPath(path, key)) : []))];
  }
  if (Array.isArray(value) && schema.type === 'array') {
    const listType = schema['x-kubernetes-list-type'] ?? 'atomic';
    const own = listType === 'atomic' ? [path] : [];
    return [...own, ...value.flatMap((item, i) => (schema.items ? atomics(item, schema.items, `${path}[${i}]`) : []))];
  }
  return [];
}

/** An item's identity in a set or map list (structured-merge-diff's PathElement), as a string. */
function itemKey(item: Json, schema: MergeSchema, path: string): string {
  if (schema['x-kubernetes-list-type'] === 'set') return JSON.stringify(item);
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (!isObject(item)) throw new ApplyConfigurationError(`${path}: expected map list item, got ${JSON.stringify(item)}`);
  return JSON.stringify(keys.map((key) => item[key] ?? null));
}

/** structured-merge-diff's visitListItems: shared items in the patch's order, the object's others where they were, new ones after. */
function mergeList(live: Json[], patch: Json[], schema: MergeSchema, path: string): Json[] | undefined {
  const items = schema.items ?? {};
  const key = (item: Json) => itemKey(item, schema, path);
  const patchKeys = patch.map(key);
  const seen = new Set<string>();
  for (const k of patchKeys) {
    if (seen.has(k)) throw new ApplyConfigurationError(`${path}: duplicate entries for key ${k}`);
    seen.add(k);
  }
  const patchByKey = new Map(patch.map((item, i) => [patchKeys[i]!, item]));
  const liveKeys = live.map(key);
  const liveByKey = new Map<string, Json>();
  const duplicated = new Set<string>();
  liveKeys.forEach((k, i) => (liveByKey.has(k) ? duplicated.add(k) : liveByKey.set(k, live[i]!)));
  const liveChild = (k: string) => (duplicated.has(k) ? null : liveByKey.get(k));
  const sharedOrder = patchKeys.filter((k) => liveByKey.has(k));
  let nextShared = sharedOrder.shift();
  const mergedPatch = new Set<string>();
  const out: Json[] = [];
  const push = (merged: Json | undefined) => merged !== undefined && out.push(merged);
  let l = 0;
  let r = 0;
  while (l < liveKeys.length || r < patchKeys.length) {
    if (l < liveKeys.length && r < patchKeys.length) {
      const lk = liveKeys[l]!;
      if (lk === patchKeys[r]) {
        mergedPatch.add(lk);
        push(merge(liveChild(lk) ?? undefined, patchByKey.get(lk), items, `${path}[${lk}]`));
        l++;
        r++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (patchByKey.has(lk) && nextShared !== undefined && nextShared !== lk) {
        l++;
        continue;
      }
    }
    if (l < liveKeys.length) {
      const lk = liveKeys[l]!;
      if (!patchByKey.has(lk)) {
        push(merge(live[l], undefined, items, `${path}[${lk}]`));
        l++;
        continue;
      } else if (mergedPatch.has(lk)) {
        l++;
      }
    }
    if (r < patchKeys.length) {
      const rk = patchKeys[r]!;
      mergedPatch.add(rk);
      push(merge(liveChild(rk) ?? undefined, patchByKey.get(rk), items, `${path}[${rk}]`));
      r++;
      if (nextShared === rk) nextShared = sharedOrder.shift();
    }
  }
  return out.length > 0 ? out : undefined;
}

/** typed.Merge of one value: the patch wins at leaves; maps and non-atomic lists merge. */
function merge(live: Json | undefined, patch: Json | undefined, schema: MergeSchema, path: string): Json | undefined {
  if (schema.type === 'object' && (isObject(live) || isObject(patch))) {
    const [l, p] = [isObject(live) ? live : undefined, isObject(patch) ? patch : undefined];
    const empty = (l === undefined || Object.keys(l).length === 0) && (p === undefined || Object.keys(p).length === 0);
    if (schema['x-kubernetes-map-type'] === 'atomic' || empty) return patch ?? live;
    const out: JsonObject = {};
    for (const key of new Set([...Object.keys(l ?? {}), ...Object.keys(p ?? {})])) {
      const merged = merge(l?.[key], p?.[key], fieldSchema(schema, key) ?? {}, fieldPath(path, key));
      if (merged !== undefined) out[key] = merged;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (schema.type === 'array' && (Array.isArray(live) || Array.isArray(patch))) {
    const [l, p] = [Array.isArray(live) ? live : [], Array.isArray(patch) ? patch : []];
    if ((schema['x-kubernetes-list-type'] ?? 'atomic') === 'atomic' || (l.length === 0 && p.length === 0)) return patch ?? live;
    return mergeList(l, p, schema, path);
  }
  return patch ?? live;
}

/** The object with the patch (the ApplyConfiguration, as plain JSON) merged in, by `schema` (objectSchema's). */
export function applyConfiguration(object: unknown, patch: Record<string, unknown>, schema: MergeSchema): unknown {
  const errors: string[] = [];
  const unknown: string[] = [];
  validate(patch as Json, schema, '', errors, unknown);
  if (errors.length > 0) throw new ApplyConfigurationError(`failed to convert patch object to typed object: ${errors.join(', ')}`);
  if (unknown.length > 0) throw new NotEvaluableLocally(`the ApplyConfiguration sets ${unknown.join(', ')}, whose schema leaves its shape open: how the API server merges it is not reproduced locally`);
  const atomic = atomics(patch as Json, schema, '');
  if (atomic.length > 0) throw new ApplyConfigurationError(`invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomic.join(', ')}`);
  return merge(object as Json, patch as Json, schema, '') ?? {};
}
