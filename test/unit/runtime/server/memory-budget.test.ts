import { describe, expect, it } from 'vitest';
import { MemoryBudget, reviewHeapCost } from '../../../../runtime/server/memory-budget.js';

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
  const keys = JSON.stringify({ object: Object.fromEntries(Array.from({ length: MiB / 16 }, (_, i) => [`k${i}`, i])) });
  const text = JSON.stringify({ object: { data: Object.fromEntries(Array.from({ length: 1024 }, (_, i) => [`d${i}`, 'x'.repeat(1000)])) } });

  it('charges many small properties far more than the same bytes of long strings, and a defaulter more than a validator', () => {
    expect(reviewHeapCost(keys, false)).toBeGreaterThan(2 * reviewHeapCost(text, false));
    expect(reviewHeapCost(keys, true)).toBeGreaterThan(1.5 * reviewHeapCost(keys, false));
    expect(reviewHeapCost(text, true)).toBe(Math.ceil(text.length * 3 + 1026 * 112 + 1026 * 24));
  });
});
