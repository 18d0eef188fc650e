/**
 * The object a defaulter left, as JSON carries it. JSON.stringify would drop a
 * symbol or a function (leaving an `add` without a value in the patch), turn
 * NaN, Infinity and undefined array items into null, write a Map as {}, and
 * throw on a BigInt or a cycle without saying where. This walk copies the
 * object the way JSON.stringify reads it (toJSON, boxed primitives, properties
 * set to undefined left out) and refuses everything else by field path.
 */
export class UnrepresentableValue extends Error {
  constructor(
    readonly field: string,
    what: string,
  ) {
    super(`${field}: ${what} is not representable in JSON`);
    this.name = 'UnrepresentableValue';
  }
}

/** Returned by a check that found a value not plain JSON: the caller then copies it with toJsonValue, which names the field. */
export const NOT_PLAIN = Symbol('not plain JSON');

/**
 * `value` itself when it already is exactly what JSON carries — the common
 * case, checked without copying (a copy of a large object is the heap a large
 * review cannot spare) — else its JSON copy from toJsonValue.
 */
export function asJsonValue(value: unknown): unknown {
  return isPlainJson(value, 0) ? value : toJsonValue(value);
}

/**
 * Deeper than this the check gives up and toJsonValue decides. That also ends
 * a cycle, without the cost of tracking the enclosing objects on every call;
 * toJsonValue then names it.
 */
export const PLAIN_CHECK_DEPTH = 1000;

/** Whether `value` is exactly what JSON carries (JSON.parse makes nothing else). */
export function isPlainJson(value: unknown, depth = 0): boolean {
  const kind = jsonKind(value);
  if (kind !== CONTAINER) return kind === PLAIN;
  if (depth >= PLAIN_CHECK_DEPTH || !isPlainContainer(value as object)) return false;
  return Array.isArray(value) ? everyItem(value, depth + 1) : everyProperty(value as Record<string, unknown>, depth + 1);
}

export const PLAIN = 0;
export const NOT_JSON = 1;
export const CONTAINER = 2;

/** What a value is to JSON on its own: a plain scalar (or null), a value JSON cannot carry, or an object to look into. */
export function jsonKind(value: unknown): typeof PLAIN | typeof NOT_JSON | typeof CONTAINER {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return PLAIN;
    case 'number':
      return Number.isFinite(value) ? PLAIN : NOT_JSON;
    case 'object':
      return value === null ? PLAIN : CONTAINER;
    default:
      return NOT_JSON;
  }
}

/** Whether an object is an array or a record as JSON.parse makes them: no toJSON, and the plain prototype (or none). */
export function isPlainContainer(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) return prototype === Array.prototype;
  return prototype === Object.prototype || prototype === null;
}

function everyItem(items: unknown[], depth: number): boolean {
  // A hole is not JSON (it would be written as null).
  for (let index = 0; index < items.length; index++) if (!(index in items) || !isPlainJson(items[index], depth)) return false;
  return true;
}

function everyProperty(object: Record<string, unknown>, depth: number): boolean {
  for (const key of Object.keys(object)) {
    const item = object[key];
    if (item === undefined || !isPlainJson(item, depth)) return false;
  }
  return true;
}

/**
 * A deep copy of a decoded review object for a defaulter to change. Plain
 * objects and arrays (all JSON.parse makes) are copied by a direct walk, several
 * times faster than structuredClone on the objects reviews carry; anything else
 * (a Date a test put in) goes to structuredClone.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value);
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = cloneJson(value[index]);
    return copy as T;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = prototype === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const key of Object.keys(value)) {
    const item = cloneJson((value as Record<string, unknown>)[key]);
    // A `__proto__` key (JSON.parse makes it an own property) must stay data, not become the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}

/** A plain JSON copy of `value`; throws UnrepresentableValue naming the first field JSON cannot carry. */
export function toJsonValue(value: unknown): unknown {
  return copy(value, '', '', new Set());
}

function copy(value: unknown, key: string, path: string, enclosing: Set<object>): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw new UnrepresentableValue(path, String(value));
    case 'bigint':
      throw new UnrepresentableValue(path, 'a BigInt');
    case 'symbol':
      throw new UnrepresentableValue(path, 'a symbol');
    case 'function':
      throw new UnrepresentableValue(path, 'a function');
    case 'undefined':
      throw new UnrepresentableValue(path, 'undefined');
  }
  if (value === null) return null;
  const object = value as object;
  if (object instanceof Map || object instanceof Set) throw new UnrepresentableValue(path, `a ${object instanceof Map ? 'Map' : 'Set'}`);
  if (enclosing.has(object)) throw new UnrepresentableValue(path, 'a reference to an enclosing object (a cycle)');
  enclosing.add(object);
  let result: unknown;
  if (Array.isArray(object)) {
    // Holes and undefined items included: JSON would write them as null.
    result = Array.from({ length: object.length }, (_, index) => copy(object[index], String(index), `${path}[${index}]`, enclosing));
  } else {
    const fields: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(object)) {
      if (item === undefined) continue;
      const field = copy(item, name, childPath(path, name), enclosing);
      // A `__proto__` key (JSON.parse makes it an own property) must stay data, not become the prototype.
      if (name === '__proto__') Object.defineProperty(fields, name, { value: field, enumerable: true, writable: true, configurable: true });
      else fields[name] = field;
    }
    result = fields;
  }
  enclosing.delete(object);
  return result;
}

function childPath(path: string, name: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return `${path}[${name}]`;
  return path === '' ? name : `${path}.${name}`;
}
