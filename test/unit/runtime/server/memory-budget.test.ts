import { describe, expect, it } from 'vitest';
import { measureJson, SMALL_OBJECT_PROPERTIES } from '../../../../runtime/webhook/admission/json-text.js';
import { estimateReview, MemoryBudget, reviewHeapCost } from '../../../../runtime/server/memory-budget.js';
import { MAX_NESTING_DEPTH } from '../../../../runtime/webhook/admission/review.js';

describe('MemoryBudget', () => {
  it('grants what fits at once, queues the rest first come first served, and releases once', async () => {
    const budget = new MemoryBudget(100);
    const first = await budget.acquire(60, 1000);
    const order: string[] = [];
    const big = budget.acquire(70, 1000).then((release) => (order.push('big'), release));
    const small = budget.acquire(10, 1000).then((release) => (order.push('small'), release));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    expect(budget.bytesInUse).toBe(60);
    first!();
    first!();
    (await big)!();
    (await small)!();
    expect(order).toEqual(['big', 'small']);
    expect(budget.bytesInUse).toBe(0);
  });

  it('gives up after the timeout, and lets those behind go on', async () => {
    const budget = new MemoryBudget(100);
    const held = await budget.acquire(90, 1000);
    const timedOut = budget.acquire(50, 30);
    const behind = budget.acquire(10, 1000);
    expect(await timedOut).toBeUndefined();
    const release = await behind;
    expect(budget.bytesInUse).toBe(100);
    held!();
    release!();
    expect(budget.bytesInUse).toBe(0);
  });
});

describe('reviewHeapCost', () => {
  const MiB = 1024 * 1024;
  const review = (junk: unknown) => JSON.stringify({ request: { uid: 'u', object: { spec: { junk } } } });
  const keys = review(Object.fromEntries(Array.from({ length: MiB / 16 }, (_, i) => [`k${i}`, i])));
  const text = review(Object.fromEntries(Array.from({ length: 1024 }, (_, i) => [`d${i}`, 'x'.repeat(1000)])));

  it('charges many small properties far more than the same bytes of long strings, and a defaulter more than a validator', () => {
    expect(reviewHeapCost(keys, false)).toBeGreaterThan(2 * reviewHeapCost(text, false));
    expect(reviewHeapCost(keys, true)).toBeGreaterThan(1.2 * reviewHeapCost(keys, false));
  });

  it('charges tiny objects tens of times their bytes, and new keys of small objects more than repeated ones', () => {
    const emptyObjects = review(Array.from({ length: 100_000 }, () => ({})));
    expect(reviewHeapCost(emptyObjects, true) / emptyObjects.length).toBeGreaterThan(50);
    const repeatedKey = review(Array.from({ length: 50_000 }, () => ({ a0: 0 })));
    const newKeys = review(Array.from({ length: 50_000 }, (_, i) => ({ [`a${i}`]: 0 })));
    expect(reviewHeapCost(newKeys, true)).toBeGreaterThan(2 * reviewHeapCost(repeatedKey, true));
  });

  it('charges a body with two-byte characters twice for its text', () => {
    const latin = review('x'.repeat(100_000));
    const polish = review('ż'.repeat(100_000));
    expect(reviewHeapCost(polish, false) - reviewHeapCost(latin, false)).toBe(latin.length * 2);
  });

  it('charges a small body at the dearest rate per byte without scanning it', () => {
    const small = review({ a: 1 });
    expect([reviewHeapCost(small, false), reviewHeapCost(small, true)]).toEqual([small.length * 48, small.length * 96]);
  });
});

describe('estimateReview', () => {
  it('says when its pass over a large body already checked the nesting depth, so the decoder need not pass again', () => {
    const nested = (levels: number) => `{"request":{"object":${'['.repeat(levels)}${']'.repeat(levels)},"pad":"${'x'.repeat(20_000)}"}}`;
    const small = JSON.stringify({ request: { uid: 'u' } });
    expect([nested(MAX_NESTING_DEPTH - 2), nested(MAX_NESTING_DEPTH + 1), small].map((body) => estimateReview(body, true).depthChecked)).toEqual([true, false, false]);
    expect(estimateReview(nested(10), false).cost).toBe(reviewHeapCost(nested(10), false));
  });
});

describe('measureJson', () => {
  it('counts what JSON.parse builds: objects, arrays, elements, properties, string values, distinct keys', () => {
    const text = JSON.stringify({ a: [1, 'x', {}, [], { b: null, c: 'y' }], d: { a: true }, e: [] });
    expect(measureJson(text, 10)).toEqual({
      objects: 4,
      arrays: 3,
      elements: 5,
      smallObjectProperties: 6,
      largeObjectProperties: 0,
      strings: 2,
      distinctKeys: 5,
      twoByte: false,
    });
  });

  it("counts properties past the first 128 of an object as a large object's, and estimates thousands of distinct keys within 3%", () => {
    const text = JSON.stringify({ big: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])), list: Array.from({ length: 20_000 }, (_, i) => ({ [`n${i}`]: 'v' })) });
    const shape = measureJson(text, 10)!;
    expect([shape.objects, shape.arrays, shape.elements, shape.smallObjectProperties, shape.largeObjectProperties, shape.strings]).toEqual([
      20_002,
      1,
      20_000,
      2 + SMALL_OBJECT_PROPERTIES + 20_000,
      1000 - SMALL_OBJECT_PROPERTIES,
      20_000,
    ]);
    const distinct = 2 + SMALL_OBJECT_PROPERTIES + 20_000;
    expect(Math.abs(shape.distinctKeys - distinct) / distinct).toBeLessThan(0.03);
  });

  it('gives each text the same shape whatever was measured before it (the key bitmap is reused), past the kept size too', () => {
    const keyed = (count: number, prefix: string) => JSON.stringify({ list: Array.from({ length: count }, (_, i) => ({ [`${prefix}${i}`]: 'v' })) });
    // 3 keys, 20,000 (a bitmap of 2^19 bits, kept) and 80,000 (2^21 bits, past the 2^20 kept): in one order, then the other.
    const texts = [keyed(3, 'a'), keyed(20_000, 'b'), keyed(3, 'c'), keyed(80_000, 'd'), keyed(3, 'e'), keyed(20_000, 'f')];
    const forward = texts.map((text) => measureJson(text, 10));
    const backward = [...texts]
      .reverse()
      .map((text) => measureJson(text, 10))
      .reverse();
    expect(backward).toEqual(forward);
    expect(forward.map((shape) => shape!.distinctKeys > 0)).toEqual(texts.map(() => true));
    expect(forward[2]!.distinctKeys).toBe(4);
  });

  it('skips brackets, colons and commas inside strings, escaped quotes included, and gives up past the depth limit', () => {
    expect(measureJson(JSON.stringify({ 'a"{[': 'x,]}:"' }), 10)).toEqual({
      objects: 1,
      arrays: 0,
      elements: 0,
      smallObjectProperties: 1,
      largeObjectProperties: 0,
      strings: 1,
      distinctKeys: 1,
      twoByte: false,
    });
    expect(measureJson('[[[[]]]]', 3)).toBeUndefined();
    expect(measureJson('[[[]]]', 3)?.arrays).toBe(3);
  });
});
