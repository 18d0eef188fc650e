/**
 * Heap for reviews in flight. Every review is charged what decoding it (and,
 * for a defaulter, cloning and diffing it) is estimated to take; reviews wait
 * in order while the heap is taken, so that a burst of large reviews is
 * served one after another instead of together pushing V8 out of memory, and
 * a review that could never fit is refused at once.
 */
import { getHeapStatistics } from 'node:v8';
import { measureJson, type JsonShape } from '../webhook/admission/json-text.js';
import { MAX_NESTING_DEPTH } from '../webhook/admission/review.js';

/** Kept for everything that is not a review: the server itself, sockets, logs, the handlers' own data. */
const RESERVE_BYTES = 24 * 1024 * 1024;

export class MemoryBudget {
  private inUse = 0;
  private readonly waiting: { cost: number; grant: (release: () => void) => void }[] = [];

  constructor(readonly capacity: number) {}

  /** What the heap limit V8 runs with (set by --max-old-space-size, or from the container's memory) leaves for reviews. */
  static fromHeap(): MemoryBudget {
    const { heap_size_limit, used_heap_size } = getHeapStatistics();
    return new MemoryBudget(Math.max(0, heap_size_limit - used_heap_size - RESERVE_BYTES));
  }

  get bytesInUse(): number {
    return this.inUse;
  }

  /** A release function when `cost` fits now and nobody is waiting before it, else undefined (then wait with acquire). */
  tryAcquire(cost: number): (() => void) | undefined {
    const charged = Math.min(cost, this.capacity);
    return this.waiting.length === 0 && this.inUse + charged <= this.capacity ? this.take(charged) : undefined;
  }

  /** Resolves with a release function once `cost` fits, or with undefined after `timeoutMs`. */
  acquire(cost: number, timeoutMs: number): Promise<(() => void) | undefined> {
    const charged = Math.min(cost, this.capacity);
    const now = this.tryAcquire(cost);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const entry = {
        cost: charged,
        grant: (release: () => void) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        resolve(undefined);
        this.grantWaiting();
      }, timeoutMs);
      this.waiting.push(entry);
    });
  }

  private take(cost: number): () => void {
    this.inUse += cost;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= cost;
      this.grantWaiting();
    };
  }

  /** First come, first served: a large review at the head is not overtaken by small ones behind it. */
  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.inUse + this.waiting[0]!.cost <= this.capacity) {
      const next = this.waiting.shift()!;
      next.grant(this.take(next.cost));
    }
  }
}

/**
 * Heap per thing decoding builds (and, for a defaulter, copying and diffing), measured on Node 24 with the
 * chart's heap flags by bisecting, for each shape of body, the largest one that does not run V8 out of heap
 * (bench/memory), then rounded up by about a fifth. `byte` covers the text and the strings decoded from it.
 * A new key of a small object is dear: V8 makes a hidden class for it when decoding and again when copying.
 * Elements and properties also carry what JSON.parse holds outside the heap while it decodes (a handle and a
 * slot of its value stack, OFF_HEAP_PER_VALUE, for each value; twice for a property, its key and its value): the heap limit does not bound that, the container's does.
 */
const OFF_HEAP_PER_VALUE = 24;
const COST = {
  validate: {
    byte: 2,
    object: 88,
    array: 50,
    element: 12 + OFF_HEAP_PER_VALUE,
    smallObjectProperty: 16 + 2 * OFF_HEAP_PER_VALUE,
    largeObjectProperty: 130 + 2 * OFF_HEAP_PER_VALUE,
    string: 30,
    distinctKey: 150,
  },
  mutate: {
    byte: 3,
    object: 160,
    array: 110,
    element: 30 + OFF_HEAP_PER_VALUE,
    smallObjectProperty: 40 + 2 * OFF_HEAP_PER_VALUE,
    largeObjectProperty: 200 + 2 * OFF_HEAP_PER_VALUE,
    string: 40,
    distinctKey: 520,
  },
};
/** Below this size a pass over the body is not worth it: charged what the dearest shape measured costs per byte. */
const SCAN_ABOVE_BYTES = 16 * 1024;
const WORST_PER_BYTE = { validate: 48, mutate: 96 };

/**
 * Estimated heap to decode a review body and run the handler on it: from the body's structure, not its length,
 * since tiny objects cost tens of times their bytes once decoded. Errs high for every shape measured.
 */
export function reviewHeapCost(body: string, mutating: boolean): number {
  return estimateReview(body, mutating).cost;
}

export interface ReviewEstimate {
  readonly cost: number;
  /** The pass that measured the body also found it nests no deeper than MAX_NESTING_DEPTH: the decoder need not look again. */
  readonly depthChecked: boolean;
}

/** reviewHeapCost, and whether its pass over the body already checked the nesting depth. */
export function estimateReview(body: string, mutating: boolean): ReviewEstimate {
  const work = mutating ? 'mutate' : 'validate';
  const shape = body.length > SCAN_ABOVE_BYTES ? measureJson(body, MAX_NESTING_DEPTH) : undefined;
  // Small, or too deep to decode (the decoder refuses it): charged like a small body.
  if (!shape) return { cost: Math.ceil(body.length * WORST_PER_BYTE[work]), depthChecked: false };
  return { cost: structuralCost(shape, body.length, COST[work]), depthChecked: true };
}

function structuralCost(shape: JsonShape, length: number, cost: (typeof COST)[keyof typeof COST]): number {
  return Math.ceil(
    length * cost.byte * (shape.twoByte ? 2 : 1) +
      shape.objects * cost.object +
      shape.arrays * cost.array +
      shape.elements * cost.element +
      shape.smallObjectProperties * cost.smallObjectProperty +
      shape.largeObjectProperties * cost.largeObjectProperty +
      shape.strings * cost.string +
      shape.distinctKeys * cost.distinctKey,
  );
}
