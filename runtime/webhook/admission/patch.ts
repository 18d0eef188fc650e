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

export type PatchOperation = { op: 'add'; path: string; value: unknown } | { op: 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

type Container = Record<string, unknown> | unknown[];

/** The operations that turn `original` into `mutated` (both plain JSON); empty when nothing changed. */
export function diffObjects(original: KubernetesObject, mutated: KubernetesObject): PatchOperation[] {
  const operations: PatchOperation[] = [];
  diffContainers(original, mutated, '', operations);
  return operations;
}

function diffContainers(before: Container, after: Container, path: string, operations: PatchOperation[]): void {
  if (before === after) return;
  if (Array.isArray(before) && Array.isArray(after)) diffArrays(before, after, path, operations);
  else if (!Array.isArray(before) && !Array.isArray(after)) diffRecords(before, after, path, operations);
  else operations.push({ op: 'replace', path, value: after });
}

/** Existing indexes last to first (so removals keep the indexes before them valid), then appended ones. */
function diffArrays(before: unknown[], after: unknown[], path: string, operations: PatchOperation[]): void {
  for (let index = before.length - 1; index >= 0; index--) {
    if (index >= after.length) operations.push({ op: 'remove', path: `${path}/${index}` });
    else if (before[index] !== after[index]) diffValues(before[index], after[index], `${path}/${index}`, operations);
  }
  for (let index = before.length; index < after.length; index++) operations.push({ op: 'add', path: `${path}/${index}`, value: after[index] });
}

/** A property set to undefined counts as absent, as JSON.stringify leaves it out. */
function diffRecords(before: Record<string, unknown>, after: Record<string, unknown>, path: string, operations: PatchOperation[]): void {
  const beforeKeys = Object.keys(before);
  let removed = false;
  for (let i = beforeKeys.length - 1; i >= 0; i--) {
    const key = beforeKeys[i]!;
    const item = after[key];
    const was = before[key];
    // Most keys are untouched. An equal value is `after`'s own: what it could inherit is a prototype's, never a JSON value.
    if (item === was) continue;
    if (item === undefined || !Object.hasOwn(after, key)) {
      operations.push({ op: 'remove', path: `${path}/${escapePathComponent(key)}` });
      removed = true;
    } else diffValues(was, item, `${path}/${escapePathComponent(key)}`, operations);
  }
  const afterKeys = Object.keys(after);
  if (!removed && afterKeys.length === beforeKeys.length) return;
  for (const key of afterKeys) {
    if (!Object.hasOwn(before, key) && after[key] !== undefined) operations.push({ op: 'add', path: `${path}/${escapePathComponent(key)}`, value: after[key] });
  }
}

function diffValues(before: unknown, after: unknown, path: string, operations: PatchOperation[]): void {
  if (isContainer(before) && isContainer(after) && Array.isArray(before) === Array.isArray(after)) diffContainers(before, after, path, operations);
  else if (before !== after) operations.push({ op: 'replace', path, value: after });
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

/** Base64 of the patch document, as AdmissionResponse.patch carries it. */
export function encodePatch(operations: readonly PatchOperation[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}
