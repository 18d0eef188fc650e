/**
 * structuredClone for defaulters: the object a defaulter changes is a view
 * (tracked-object.ts), a Proxy, which the structured clone algorithm refuses.
 * Once views exist, globalThis.structuredClone is wrapped: a clone that fails
 * with a DataCloneError is tried again with every view in the value replaced
 * by a plain copy of its current contents. Any clone that works as it is, or
 * that fails for any other reason, is untouched, so nothing else changes.
 */
/** What a view's get trap answers for this key: its target. */
export const VIEW_TARGET = Symbol('shaper-gen view target');

let allowed = false;

export function allowStructuredCloneOfViews(): void {
  if (allowed) return;
  allowed = true;
  const native = globalThis.structuredClone;
  globalThis.structuredClone = function structuredClone<T>(value: T, options?: Parameters<typeof native>[1]): T {
    try {
      return native(value, options);
    } catch (error) {
      if (!(error instanceof DOMException) || error.name !== 'DataCloneError') throw error;
      const found = { views: 0 };
      const replaced = withoutViews(value, new Map(), found);
      if (found.views === 0) throw error;
      return native(replaced as T, options);
    }
  };
}

/**
 * `value` with plain copies of its arrays and plain objects, views replaced by copies of their targets;
 * everything else as it is. `seen` keeps aliases and cycles as they were; `found` counts the views.
 */
function withoutViews(value: unknown, seen: Map<object, unknown>, found: { views: number }): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return seen.get(value);
  const target = viewTarget(value);
  if (target !== undefined) {
    found.views++;
    const copy = withoutViews(target, seen, found);
    seen.set(value, copy);
    return copy;
  }
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (let index = 0; index < value.length; index++) if (index in value) copy[index] = withoutViews(value[index], seen, found);
    return copy;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy = Object.create(prototype) as Record<string, unknown>;
  seen.set(value, copy);
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, { value: withoutViews((value as Record<string, unknown>)[key], seen, found), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function viewTarget(value: object): object | undefined {
  try {
    return (value as { [VIEW_TARGET]?: object })[VIEW_TARGET];
  } catch {
    return undefined; // a revoked or hostile Proxy of someone else's
  }
}
