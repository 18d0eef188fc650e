/**
 * The object a defaulter changes: a copy-on-write view of the decoded one, so
 * that a review copies and diffs only what its handler touched.
 *
 * Each object or array the handler reaches is a shallow copy of the decoded
 * one, made when first read; one that holds objects or arrays is seen through
 * a Proxy, and those stay the decoded ones until they are read in turn (an
 * object of strings, such as labels, is only a copy: nothing below it needs
 * protecting). Writes land in the
 * copies, with views unwrapped, so the copies always hold the object's
 * current state. What the handler never reached is still the decoded object
 * itself, which nothing can change: the diff skips it by identity.
 *
 * JavaScript can see a Proxy in a few places, each handled so that the
 * handler sees a plain object:
 * - Freezing, sealing, preventExtensions and defineProperty bind the Proxy to
 *   return its target's own values, so the subtree below is made a deep copy
 *   first (no decoded object stays reachable through it). Until then a copy
 *   holds only writable data properties, so the traps read and write it with
 *   plain property accesses; after (and after setPrototypeOf) they use
 *   Reflect with the receiver, exact for accessors.
 * - structuredClone refuses a Proxy; a failed clone is retried with views
 *   replaced by their contents (structured-clone.ts).
 * - util.inspect shows a Proxy's target: the copy, which holds the current state.
 */
import { allowStructuredCloneOfViews, VIEW_TARGET } from './structured-clone.js';
import { cloneJson, CONTAINER, isPlainContainer, jsonKind, NOT_PLAIN, PLAIN, PLAIN_CHECK_DEPTH } from './json-value.js';
import type { ChangedSide } from './patch.js';

type Container = Record<string, unknown> | unknown[];
type Properties = Record<PropertyKey, unknown>;

/** Up to this many nodes are found by a scan of a list: a handler reaches a handful, and a Map's hashing and growth cost more. */
const LISTED_NODES = 16;

export class TrackedObject implements ChangedSide {
  /** Each view's node, in a list while there are few… */
  private readonly listed: ViewNode[] = [];
  /** …and by its target and by its proxy once there are more. */
  private mapped: Map<object, ViewNode> | undefined;
  readonly view: Container;

  /** `original` must be plain JSON (what JSON.parse makes); it is never changed. */
  constructor(original: Container) {
    allowStructuredCloneOfViews();
    this.view = this.nodeFor(shallowCopy(original), original).proxy;
  }

  nodeFor(target: Container, original: Container | undefined): ViewNode {
    const node = new ViewNode(this, target, original);
    if (this.mapped) mapNode(this.mapped, node);
    else if (this.listed.push(node) > LISTED_NODES) {
      const mapped = new Map<object, ViewNode>();
      for (const listed of this.listed) mapNode(mapped, listed);
      this.mapped = mapped;
    }
    return node;
  }

  /** The node whose target or proxy `value` is. */
  nodeOf(value: object): ViewNode | undefined {
    if (this.mapped) return this.mapped.get(value);
    for (const node of this.listed) if (node.target === value || node.proxy === value) return node;
    return undefined;
  }

  /** A view's target; anything else as it is. */
  unwrap(value: unknown): unknown {
    return typeof value === 'object' && value !== null ? (this.nodeOf(value)?.target ?? value) : value;
  }

  /**
   * For the diff (patch.ts): the container behind `value` found in the changed object (a view's copy), checked to
   * be one JSON carries; its items are checked as the diff reaches them.
   */
  container(value: object, depth: number): Container | typeof NOT_PLAIN {
    if (depth >= PLAIN_CHECK_DEPTH) return NOT_PLAIN;
    const container = (this.nodeOf(value)?.target ?? value) as Container;
    return isPlainContainer(container) ? container : NOT_PLAIN;
  }

  /**
   * For the diff: `value` (a changed value, the view itself, or what the handler returned) as plain JSON, sharing
   * what the handler never reached with the decoded object; NOT_PLAIN when anything in it is not exactly what JSON
   * carries (see isPlainJson). Never changes an object the handler can see: a container holding a view is copied.
   */
  settle(value: unknown, depth: number): unknown {
    const kind = jsonKind(value);
    if (kind !== CONTAINER) return kind === PLAIN ? value : NOT_PLAIN;
    const container = this.container(value as object, depth);
    if (container === NOT_PLAIN) return NOT_PLAIN;
    const original = this.nodeOf(container)?.original;
    return Array.isArray(container) ? this.settleArray(container, original, depth) : this.settleRecord(container, original, depth);
  }

  private settleArray(items: unknown[], original: Container | undefined, depth: number): unknown {
    let result = items;
    for (let index = 0; index < items.length; index++) {
      // A hole is not JSON (it would be written as null).
      if (!(index in items)) return NOT_PLAIN;
      const item = items[index];
      if (original !== OWNED && typeof item === 'object' && isDecodedChild(original, String(index), item)) continue;
      const settled = this.settle(item, depth + 1);
      if (settled === NOT_PLAIN) return NOT_PLAIN;
      if (settled !== item) (result === items ? (result = [...items]) : result)[index] = settled;
    }
    return result;
  }

  private settleRecord(record: Record<string, unknown>, original: Container | undefined, depth: number): unknown {
    let result = record;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (original !== OWNED && typeof item === 'object' && isDecodedChild(original, key, item)) continue;
      // A property set to undefined: JSON.stringify leaves it out, and toJsonValue copies it so.
      if (item === undefined) return NOT_PLAIN;
      const settled = this.settle(item, depth + 1);
      if (settled === NOT_PLAIN) return NOT_PLAIN;
      if (settled !== item) setOwn(result === record ? (result = shallowCopy(record)) : result, key, settled);
    }
    return result;
  }
}

/**
 * One object or array of the view: its copy (the target), the Proxy the handler holds, and the decoded object
 * the copy was made from. It is the Proxy's handler, so a trap finds its node without a lookup.
 */
class ViewNode implements ProxyHandler<Container> {
  readonly proxy: Container;

  constructor(
    private readonly tracked: TrackedObject,
    readonly target: Container,
    /** The decoded object the target was copied from; OWNED once the subtree below it is deep copies. */
    public original: Container | undefined,
  ) {
    this.proxy = new Proxy(target, this);
  }

  get(target: Container, key: string | symbol, receiver: unknown): unknown {
    if (key === VIEW_TARGET) return target;
    const { original } = this;
    // Read through the view itself from a copy with only data properties: a plain read, no lookup with a receiver.
    const value: unknown = original !== OWNED && receiver === this.proxy ? (target as Properties)[key] : Reflect.get(target, key, receiver);
    if (typeof value !== 'object' || value === null) return value;
    // Owned (frozen, perhaps): its own values as they are, as a Proxy over a frozen target must answer.
    if (original === OWNED) return value;
    if (typeof key === 'string' && isDecodedChild(original, key, value) && Object.hasOwn(target, key)) {
      // First read of a decoded child: copy it, one level. With nothing below it to protect, the copy is all it needs.
      const copy = shallowCopy(value as Container);
      setOwn(target, key, copy);
      return holdsContainers(copy) ? this.tracked.nodeFor(copy, value as Container).proxy : copy;
    }
    return this.tracked.nodeOf(value)?.proxy ?? value;
  }

  set(target: Container, key: string | symbol, value: unknown, receiver: unknown): boolean {
    if (receiver !== this.proxy) return Reflect.set(target, key, value, receiver);
    const unwrapped = this.tracked.unwrap(value);
    // Setting `__proto__` can give the target a prototype with accessors: the plain reads and writes stop here.
    if (key === '__proto__') this.own(target);
    if (this.original === OWNED) return Reflect.set(target, key, unwrapped);
    // An extensible copy whose properties are all writable data: the assignment cannot fail.
    (target as Properties)[key] = unwrapped;
    return true;
  }

  getOwnPropertyDescriptor(target: Container, key: string | symbol): PropertyDescriptor | undefined {
    const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
    if (descriptor && 'value' in descriptor && typeof descriptor.value === 'object' && descriptor.value !== null && this.original !== OWNED) {
      descriptor.value = this.get(target, key, this.proxy);
    }
    return descriptor;
  }

  defineProperty(target: Container, key: string | symbol, descriptor: PropertyDescriptor): boolean {
    this.own(target);
    if ('value' in descriptor) descriptor = { ...descriptor, value: this.tracked.unwrap(descriptor.value) };
    return Reflect.defineProperty(target, key, descriptor);
  }

  preventExtensions(target: Container): boolean {
    this.own(target);
    return Reflect.preventExtensions(target);
  }

  setPrototypeOf(target: Container, prototype: object | null): boolean {
    this.own(target);
    return Reflect.setPrototypeOf(target, prototype);
  }

  /**
   * Makes every decoded object below `target` a deep copy, so that its own values can be handed out as they
   * are (what a frozen or non-extensible Proxy must do) without exposing a decoded object to changes.
   */
  own(target: Container): void {
    const { original } = this;
    if (original === OWNED) return;
    this.original = OWNED;
    for (const key of Object.keys(target)) {
      const child = (target as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      if (isDecodedChild(original, key, child)) setOwn(target, key, cloneJson(child));
      else {
        const node = this.tracked.nodeOf(child);
        if (node?.target === child) node.own(child as Container);
      }
    }
  }
}

function mapNode(nodes: Map<object, ViewNode>, node: ViewNode): void {
  nodes.set(node.target, node);
  nodes.set(node.proxy, node);
}

/** The `original` of a node whose subtree is owned. */
const OWNED = undefined;

/** Whether `value`, found at `key` of a copy, is still the decoded object's own child there (never reached by the handler). */
function isDecodedChild(original: Container, key: string, value: unknown): boolean {
  return value !== null && value === (original as Record<string, unknown>)[key] && Object.hasOwn(original, key);
}

function holdsContainers(value: Container): boolean {
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null) return true;
    return false;
  }
  for (const key in value) {
    const item = value[key];
    if (typeof item === 'object' && item !== null) return true;
  }
  return false;
}

function shallowCopy<T extends Container>(value: T): T {
  if (Array.isArray(value)) return value.slice() as T;
  // Spread defines own data properties (a `__proto__` key stays a key) and takes V8's object-cloning fast path.
  if (Object.getPrototypeOf(value) !== null) return { ...(value as object) } as T;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) copy[key] = value[key];
  return copy as T;
}

/** `target[key] = value`, keeping a `__proto__` key as data (JSON.parse makes it an own property), not the prototype. */
function setOwn(target: Container, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}
