/**
 * A JSON Patch applied as the API server applies a mutating policy's
 * (gopkg.in/evanphx/json-patch.v4, which k8s.io/apiserver
 * pkg/admission/plugin/policy/mutating/patch/json_patch.go uses), with its
 * departures from RFC 6902 and its messages: `replace` of a missing object
 * key adds it, negative array indices count from the end, and a failed
 * `test` leaves the object as it was instead of failing the request.
 */

import { NotEvaluableLocally } from '../../cel/runtime-library.js';

export interface PatchOperation {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  /** Absent when the expression set no value. */
  readonly value?: unknown;
}

/** The patch could not be applied; the message is json-patch's. */
export class JsonPatchError extends Error {}

/** A `test` operation failed: the API server keeps the object unpatched. */
class TestFailed extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | Record<string, Json>;

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/** RFC 6901 token: `~1` is `/`, `~0` is `~`. */
function decodeKey(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Go's strconv.Atoi, with its error text. */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new JsonPatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  return Number(key);
}

function isContainer(value: Json | undefined): value is Container {
  return typeof value === 'object' && value !== null;
}

/** An array index with negative ones counted from the end, as `get`, `set` and `remove` take it. */
function arrayIndex(array: readonly Json[], key: string): number {
  let index = atoi(key);
  if (index < 0) {
    if (index < -array.length) throw new JsonPatchError(`Unable to access invalid index: ${index}: ${INVALID_INDEX}`);
    index += array.length;
  }
  if (index >= array.length) throw new JsonPatchError(`Unable to access invalid index: ${index}: ${INVALID_INDEX}`);
  return index;
}

/** undefined: an object without the key (json-patch's nil, no error). */
function get(container: Container, key: string): Json | undefined {
  if (Array.isArray(container)) return container[arrayIndex(container, key)];
  return Object.hasOwn(container, key) ? container[key] : undefined;
}

function add(container: Container, key: string, value: Json): void {
  if (!Array.isArray(container)) {
    container[key] = value;
    return;
  }
  if (key === '-') {
    container.push(value);
    return;
  }
  let index: number;
  try {
    index = atoi(key);
  } catch (error) {
    throw new JsonPatchError(`value was not a proper array index: '${key}': ${(error as Error).message}`);
  }
  const size = container.length + 1;
  if (index >= size || index < -size) throw new JsonPatchError(`Unable to access invalid index: ${index}: ${INVALID_INDEX}`);
  if (index < 0) index += size;
  container.splice(index, 0, value);
}

function remove(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) throw new JsonPatchError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    Reflect.deleteProperty(container, key);
    return;
  }
  const raw = atoi(key);
  if (raw >= container.length) throw new JsonPatchError(`Unable to access invalid index: ${raw}: ${INVALID_INDEX}`);
  container.splice(arrayIndex(container, key), 1);
}

/** The container holding the path's last token, and that token; undefined when a step is missing or not a container. */
function findObject(document: Container, path: string): { container: Container; key: string } | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let container: Container = document;
  for (const token of tokens.slice(1, -1)) {
    let next: Json | undefined;
    try {
      next = get(container, decodeKey(token));
    } catch {
      return undefined;
    }
    if (!isContainer(next)) return undefined;
    container = next;
  }
  return { container, key: decodeKey(tokens.at(-1)!) };
}

function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]));
}

const clone = (value: Json): Json => structuredClone(value);

interface Root {
  document: Container;
}
type Apply = (root: Root, operation: PatchOperation) => void;

const wrap = (what: string, error: unknown) => new JsonPatchError(`${what}: ${(error as Error).message}`);
const valueOf = (operation: PatchOperation) => (operation.value === undefined ? null : operation.value) as Json;

/** `run` on the container at `path`, or the operation's "does not apply" error. */
function at(root: Root, path: string, missing: string, run: (container: Container, key: string) => void): void {
  const target = findObject(root.document, path);
  if (!target) throw new JsonPatchError(missing);
  run(target.container, target.key);
}

function attempt(what: string, run: () => void): void {
  try {
    run();
  } catch (error) {
    throw wrap(what, error);
  }
}

const addOperation: Apply = (root, operation) =>
  at(root, operation.path, `add operation does not apply: doc is missing path: "${operation.path}": ${MISSING}`, (container, key) =>
    attempt(`error in add for path: '${operation.path}'`, () => add(container, key, clone(valueOf(operation)))),
  );

const removeOperation: Apply = (root, { path }) =>
  at(root, path, `remove operation does not apply: doc is missing path: "${path}": ${MISSING}`, (container, key) => attempt(`error in remove for path: '${path}'`, () => remove(container, key)));

const replaceOperation: Apply = (root, operation) => {
  const { path } = operation;
  const value = valueOf(operation);
  if (path === '') {
    if (!isContainer(value)) throw new JsonPatchError('replace operation value must be object or array: <nil>');
    root.document = clone(value) as Container;
    return;
  }
  at(root, path, `replace operation does not apply: doc is missing path: ${path}: ${MISSING}`, (container, key) => {
    try {
      get(container, key);
    } catch {
      throw new JsonPatchError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
    }
    // A missing object key is set: json-patch v4's `get` finds nothing without an error.
    if (Array.isArray(container)) container[arrayIndex(container, key)] = clone(value);
    else container[key] = clone(value);
  });
};

function moveOrCopy(op: 'move' | 'copy'): Apply {
  return (root, { path, from = '' }) => {
    let moved: Json | undefined;
    at(root, from, `${op} operation does not apply: doc is missing from path: ${from}: ${MISSING}`, (container, key) => {
      attempt(op === 'move' ? `error in move for path: '${key}'` : `error in copy for from: '${from}'`, () => void (moved = get(container, key)));
      if (op === 'move') attempt(`error in move for path: '${key}'`, () => remove(container, key));
      else if (moved === undefined) throw new NotEvaluableLocally(`a JSON Patch copy from a missing key (${from}): what json-patch v4 does with it is not reproduced locally`);
    });
    at(root, path, `${op} operation does not apply: doc is missing destination path: ${path}: ${MISSING}`, (container, key) =>
      attempt(op === 'move' ? `error in move for path: '${path}'` : 'error while adding value during copy', () => add(container, key, clone(moved ?? null))),
    );
  };
}

const testOperation: Apply = (root, operation) => {
  const { path } = operation;
  const expected = operation.value === undefined ? undefined : (operation.value as Json);
  if (path === '') {
    if (!deepEqual(root.document, expected)) throw new TestFailed();
    return;
  }
  at(root, path, `test operation does not apply: is missing path: ${path}: ${MISSING}`, (container, key) => {
    let actual: Json | undefined;
    attempt(`error in test for path: '${path}'`, () => void (actual = get(container, key)));
    // A missing key passes only a test without a value (a `null` value is a value).
    if (actual === undefined ? expected !== undefined : !deepEqual(actual, expected)) throw new TestFailed();
  });
};

const OPERATIONS: Readonly<Record<string, Apply>> = {
  add: addOperation,
  remove: removeOperation,
  replace: replaceOperation,
  move: moveOrCopy('move'),
  copy: moveOrCopy('copy'),
  test: testOperation,
};

function applyOperation(root: Root, operation: PatchOperation): void {
  const apply = Object.hasOwn(OPERATIONS, operation.op) ? OPERATIONS[operation.op] : undefined;
  if (!apply) throw new JsonPatchError(`Unexpected kind: ${operation.op}`);
  apply(root, operation);
}

/** The patched object (a new one), the object as it was when a `test` failed, or JsonPatchError. */
export function applyJsonPatch(object: unknown, operations: readonly PatchOperation[]): unknown {
  const root = { document: structuredClone(object) as Container };
  try {
    for (const operation of operations) applyOperation(root, operation);
  } catch (error) {
    if (error instanceof TestFailed) return object;
    throw error;
  }
  return root.document;
}
