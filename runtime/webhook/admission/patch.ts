/**
 * The JSON Patch (RFC 6902) a mutating webhook answers with: the difference
 * between the object as received and as the defaulter left it.
 *
 * The operations are the ones fast-json-patch's `compare` writes (same order,
 * same paths), so patches did not change when this replaced it. It walks
 * arrays by index: `compare` makes a string for every index of both arrays,
 * which cost a review of a large array more heap than decoding it did. A path
 * is written only for an operation or a changed container: a defaulter's
 * object shares what it did not touch with the decoded one (tracked-object.ts),
 * and that is skipped by identity.
 */
import type { KubernetesObject } from '../contract.js';
import { NOT_PLAIN } from './json-value.js';

export type PatchOperation = { op: 'add'; path: string; value: unknown } | { op: 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

type Container = Record<string, unknown> | unknown[];

/**
 * How the diff reads the changed object: as it is when it is plain JSON, or
 * through a defaulter's view (tracked-object.ts), which answers with the
 * copies behind its views and checks only what the diff reaches.
 */
export interface ChangedSide {
  /** The container to compare for an object found on the changed side at `depth`; NOT_PLAIN when JSON cannot carry it. */
  container(value: object, depth: number): Container | typeof NOT_PLAIN;
  /** A changed value at `depth` as the operation carries it; NOT_PLAIN when JSON cannot carry it. */
  settle(value: unknown, depth: number): unknown;
}

const PLAIN_JSON: ChangedSide = {
  container: (value) => value as Container,
  settle: (value) => value,
};

/** The operations that turn `original` into `mutated` (both plain JSON); empty when nothing changed. */
export function diffObjects(original: KubernetesObject, mutated: KubernetesObject): PatchOperation[] {
  return diffChanged(original, mutated, PLAIN_JSON) as PatchOperation[];
}

/**
 * The operations that turn `original` (plain JSON) into `changed` as `side` reads it; NOT_PLAIN as soon as a
 * value the diff reaches is not plain JSON (the caller then copies it with toJsonValue, which names the field).
 */
export function diffChanged(original: KubernetesObject, changed: object, side: ChangedSide): PatchOperation[] | typeof NOT_PLAIN {
  try {
    const differ = new Differ(side);
    differ.containers(original, differ.container(changed, 0), '', 0);
    return differ.operations;
  } catch (error) {
    if (error === notPlainJson) return NOT_PLAIN;
    throw error;
  }
}

/** Thrown from deep in the walk when a value is not plain JSON, and caught by diffChanged: no check on every return. */
const notPlainJson = new Error('not plain JSON');

class Differ {
  readonly operations: PatchOperation[] = [];

  constructor(private readonly side: ChangedSide) {}

  container(value: object, depth: number): Container {
    const container = this.side.container(value, depth);
    if (container === NOT_PLAIN) throw notPlainJson;
    return container;
  }

  settled(value: unknown, depth: number): unknown {
    const settled = this.side.settle(value, depth);
    if (settled === NOT_PLAIN) throw notPlainJson;
    return settled;
  }

  containers(before: Container, after: Container, path: string, depth: number): void {
    if (before === after) return;
    if (Array.isArray(before) && Array.isArray(after)) this.arrays(before, after, path, depth);
    else if (!Array.isArray(before) && !Array.isArray(after)) this.records(before, after, path, depth);
    else this.operations.push({ op: 'replace', path, value: this.settled(after, depth) });
  }

  /** Existing indexes last to first (so removals keep the indexes before them valid), then appended ones. */
  private arrays(before: unknown[], after: unknown[], path: string, depth: number): void {
    for (let index = before.length - 1; index >= 0; index--) {
      if (index >= after.length) this.operations.push({ op: 'remove', path: `${path}/${index}` });
      // A hole reads as undefined, which no decoded item is: the value is then checked, and refused.
      else if (before[index] !== after[index]) this.values(before[index], after[index], `${path}/${index}`, depth + 1);
    }
    for (let index = before.length; index < after.length; index++) {
      this.operations.push({ op: 'add', path: `${path}/${index}`, value: this.settled(after[index], depth + 1) });
    }
  }

  /** A property set to undefined counts as absent, as JSON.stringify leaves it out. */
  private records(before: Record<string, unknown>, after: Record<string, unknown>, path: string, depth: number): void {
    const beforeKeys = Object.keys(before);
    const afterKeys = Object.keys(after);
    if (startsWith(afterKeys, beforeKeys)) this.extendedRecord(afterKeys, Object.values(before), Object.values(after), path, depth);
    else this.reorderedRecord(before, after, [beforeKeys, afterKeys], path, depth);
  }

  /**
   * The common case, `after` holding `before`'s keys in their order and perhaps more after them: the values are
   * compared by position, with no lookup by key (on the many shapes a diff meets, each one a megamorphic load).
   * `keys` are `after`'s, the first `was.length` of them `before`'s.
   */
  private extendedRecord(keys: string[], was: unknown[], now: unknown[], path: string, depth: number): void {
    for (let i = was.length - 1; i >= 0; i--) {
      const item = now[i];
      if (item === was[i]) continue;
      const itemPath = `${path}/${escapePathComponent(keys[i]!)}`;
      if (item === undefined) this.operations.push({ op: 'remove', path: itemPath });
      else this.values(was[i], item, itemPath, depth + 1);
    }
    for (let i = was.length; i < keys.length; i++) {
      const item = now[i];
      if (item !== undefined) this.operations.push({ op: 'add', path: `${path}/${escapePathComponent(keys[i]!)}`, value: this.settled(item, depth + 1) });
    }
  }

  /** Keys removed, or `after`'s in another order: each of `before`'s looked up in `after`, then `after`'s new ones. */
  private reorderedRecord(before: Record<string, unknown>, after: Record<string, unknown>, [beforeKeys, afterKeys]: [string[], string[]], path: string, depth: number): void {
    for (let i = beforeKeys.length - 1; i >= 0; i--) {
      const key = beforeKeys[i]!;
      const item = after[key];
      const was = before[key];
      // An equal value is `after`'s own: what it could inherit is a prototype's, never a JSON value.
      if (item === was) continue;
      if (item === undefined || !Object.hasOwn(after, key)) this.operations.push({ op: 'remove', path: `${path}/${escapePathComponent(key)}` });
      else this.values(was, item, `${path}/${escapePathComponent(key)}`, depth + 1);
    }
    for (const key of afterKeys) {
      if (Object.hasOwn(before, key)) continue;
      const item = after[key];
      if (item !== undefined) this.operations.push({ op: 'add', path: `${path}/${escapePathComponent(key)}`, value: this.settled(item, depth + 1) });
    }
  }

  /** `before` and `after` differ. */
  private values(before: unknown, after: unknown, path: string, depth: number): void {
    if (isContainer(before) && isContainer(after)) {
      const container = this.container(after, depth);
      if (Array.isArray(before) === Array.isArray(container)) return this.containers(before, container, path, depth);
    }
    this.operations.push({ op: 'replace', path, value: this.settled(after, depth) });
  }
}

/** Whether `keys` begins with every one of `prefix`, in order. */
function startsWith(keys: readonly string[], prefix: readonly string[]): boolean {
  if (keys.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (keys[i] !== prefix[i]) return false;
  return true;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** Escaped keys seen so far (label and annotation keys recur from review to review), up to a bound. */
const escapedKeys = new Map<string, string>();
const MAX_ESCAPED_KEYS = 1024;

/** RFC 6901: `~` is written `~0` and `/` is written `~1`. */
function escapePathComponent(key: string): string {
  if (!key.includes('/') && !key.includes('~')) return key;
  let escaped = escapedKeys.get(key);
  if (escaped === undefined) {
    escaped = key.replaceAll('~', '~0').replaceAll('/', '~1');
    if (escapedKeys.size >= MAX_ESCAPED_KEYS) escapedKeys.clear();
    escapedKeys.set(key, escaped);
  }
  return escaped;
}

/**
 * The UTF-8 bytes of the patch being encoded, in one buffer for the process. `Buffer.from` would take them from
 * Node's shared 8 KiB pool: under load V8 kept a tenth of those pools past their use, 1.3 MB a second of external
 * memory that only a mark-compact frees, and the mark-compacts it brought on set mutation's p99 (ADR 0016).
 */
let patchBytes = Buffer.allocUnsafeSlow(16 * 1024);
/** Larger patches are rare: they get a buffer of their own rather than keeping a large one. */
const MAX_PATCH_BYTES_KEPT = 1024 * 1024;

/** Base64 of the patch document, as AdmissionResponse.patch carries it. */
export function encodePatch(operations: readonly PatchOperation[]): string {
  const json = JSON.stringify(operations);
  // Three bytes of UTF-8 at most for each UTF-16 unit: only a long patch needs its size counted.
  if (json.length * 3 > patchBytes.length) {
    const size = Buffer.byteLength(json);
    if (size > MAX_PATCH_BYTES_KEPT) return Buffer.from(json).toString('base64');
    if (size > patchBytes.length) patchBytes = Buffer.allocUnsafeSlow(Math.min(MAX_PATCH_BYTES_KEPT, Math.max(size, patchBytes.length * 2)));
  }
  const size = patchBytes.write(json);
  return patchBytes.toString('base64', 0, size);
}
