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
