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

/** A list's items by identity; an identity the list holds twice has no item (structured-merge-diff does not merge duplicates). */
interface IndexedList {
  readonly keys: readonly string[];
  readonly byKey: ReadonlyMap<string, Json | undefined>;
}

function indexList(list: readonly Json[], schema: MergeSchema, path: string, allowDuplicates: boolean): IndexedList {
  const keys = list.map((item) => itemKey(item, schema, path));
  const byKey = new Map<string, Json | undefined>();
  keys.forEach((key, i) => {
    if (!byKey.has(key)) byKey.set(key, list[i]);
    else if (allowDuplicates) byKey.set(key, undefined);
    else throw new ApplyConfigurationError(`${path}: duplicate entries for key ${key}`);
  });
  return { keys, byKey };
}

/** One item of the merged list: the object's item at `liveIndex` alone, or the item of `key` merged from both sides. */
interface MergeStep {
  readonly key: string;
  readonly liveIndex?: number;
}

/** structured-merge-diff's visitListItems order: shared items in the patch's order, the object's others where they were, new ones after. */
function mergeOrder(liveKeys: readonly string[], patchKeys: readonly string[]): MergeStep[] {
  const inPatch = new Set(patchKeys);
  const inLive = new Set(liveKeys);
  const shared = patchKeys.filter((key) => inLive.has(key));
  let nextShared = shared.shift();
  const merged = new Set<string>();
  const steps: MergeStep[] = [];
  let [l, r] = [0, 0];
  while (l < liveKeys.length || r < patchKeys.length) {
    const liveKey = liveKeys[l];
    if (liveKey !== undefined && r < patchKeys.length) {
      if (liveKey === patchKeys[r]) {
        merged.add(liveKey);
        steps.push({ key: liveKey });
        [l, r, nextShared] = [l + 1, r + 1, shared.shift()];
        continue;
      }
      if (inPatch.has(liveKey) && nextShared !== undefined && nextShared !== liveKey) {
        l++;
        continue;
      }
    }
    if (liveKey !== undefined && !inPatch.has(liveKey)) {
      steps.push({ key: liveKey, liveIndex: l++ });
      continue;
    }
    if (liveKey !== undefined && merged.has(liveKey)) l++;
    const patchKey = patchKeys[r];
    if (patchKey === undefined) continue;
    merged.add(patchKey);
    steps.push({ key: patchKey });
    r++;
    if (nextShared === patchKey) nextShared = shared.shift();
  }
  return steps;
}

function mergeList(live: readonly Json[], patch: readonly Json[], schema: MergeSchema, path: string): Json[] | undefined {
  const items = schema.items ?? {};
  const patchIndex = indexList(patch, schema, path, false);
  const liveIndex = indexList(live, schema, path, true);
  const out = mergeOrder(liveIndex.keys, patchIndex.keys)
    .map(({ key, liveIndex: at }) =>
      at === undefined ? merge(liveIndex.byKey.get(key), patchIndex.byKey.get(key), items, `${path}[${key}]`) : merge(live[at], undefined, items, `${path}[${key}]`),
    )
    .filter((item) => item !== undefined);
  return out.length > 0 ? out : undefined;
}

function mergeObject(live: Json | undefined, patch: Json | undefined, schema: MergeSchema, path: string): Json | undefined {
  const [l, p] = [isObject(live) ? live : {}, isObject(patch) ? patch : {}];
  if (schema['x-kubernetes-map-type'] === 'atomic' || (Object.keys(l).length === 0 && Object.keys(p).length === 0)) return patch ?? live;
  const out: JsonObject = {};
  for (const key of new Set([...Object.keys(l), ...Object.keys(p)])) {
    const merged = merge(l[key], p[key], fieldSchema(schema, key) ?? {}, fieldPath(path, key));
    if (merged !== undefined) out[key] = merged;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** typed.Merge of one value: the patch wins at leaves; maps and non-atomic lists merge. */
function merge(live: Json | undefined, patch: Json | undefined, schema: MergeSchema, path: string): Json | undefined {
  if (schema.type === 'object' && (isObject(live) || isObject(patch))) return mergeObject(live, patch, schema, path);
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
  if (unknown.length > 0)
    throw new NotEvaluableLocally(`the ApplyConfiguration sets ${unknown.join(', ')}, whose schema leaves its shape open: how the API server merges it is not reproduced locally`);
  const atomic = atomics(patch as Json, schema, '');
  if (atomic.length > 0) throw new ApplyConfigurationError(`invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomic.join(', ')}`);
  return merge(object as Json, patch as Json, schema, '') ?? {};
}
