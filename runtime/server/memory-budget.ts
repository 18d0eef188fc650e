/**
 * Heap for reviews in flight. Every review is charged what decoding it (and,
 * for a defaulter, cloning and diffing it) is estimated to take; reviews wait
 * in order while the heap is taken, so that a burst of large reviews is
 * served one after another instead of together pushing V8 out of memory, and
 * a review that could never fit is refused at once.
 */
import { getHeapStatistics } from 'node:v8';
import { countValues } from '../admission/json-text.js';

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
      const entry = { cost: charged, grant: (release: () => void) => {
        clearTimeout(timer);
        resolve(release);
      } };
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

/** Heap per body byte (the text, and the strings decoded from it), per object property and per other JSON value. */
const COST = {
  validate: { byte: 2, property: 48, value: 8 },
  // A defaulter's working copy and the diff roughly double the decoded part.
  mutate: { byte: 3, property: 112, value: 24 },
};
/** Below this size a pass over the body is not worth it: charged as if every 8 bytes were a property. */
const SCAN_ABOVE_BYTES = 64 * 1024;

/** Estimated heap to decode a review body and run the handler on it, calibrated on Node 24 (bench/memory). Errs high. */
export function reviewHeapCost(body: string, mutating: boolean): number {
  const cost = COST[mutating ? 'mutate' : 'validate'];
  const { properties, values } = body.length > SCAN_ABOVE_BYTES ? countValues(body) : { properties: body.length / 8, values: 0 };
  return Math.ceil(body.length * cost.byte + properties * cost.property + values * cost.value);
}
