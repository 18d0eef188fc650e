import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

let cache: string;

beforeEach(() => {
  cache = mkdtempSync(path.join(tmpdir(), 'cel-answers-'));
  vi.stubEnv('SHAPER_GEN_CACHE', cache);
  vi.stubEnv('SHAPER_GEN_NO_CEL_CACHE', undefined);
  vi.resetModules();
});

afterEach(() => {
  rmSync(cache, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

/** A fresh copy of the module, as a new process would load it. */
const freshCache = async () => (await import('../../../../generator/src/cel/engine/answer-cache.js')).cachedAnswer;

describe("the engine's answer cache", () => {
  it('asks once per request and engine build, also in the next process', async () => {
    const asked: string[] = [];
    const ask = (expression: string) => () => (asked.push(expression), { outputType: 'bool', expression });
    let cachedAnswer = await freshCache();
    expect(cachedAnswer('compile', { expression: 'true' }, ask('true'))).toEqual({ outputType: 'bool', expression: 'true' });
    expect(cachedAnswer('compile', { expression: 'true' }, ask('true'))).toEqual({ outputType: 'bool', expression: 'true' });
    expect(cachedAnswer('estimateCost', { expression: 'true' }, ask('cost of true'))).toEqual({ outputType: 'bool', expression: 'cost of true' });
    vi.resetModules();
    cachedAnswer = await freshCache();
    expect(cachedAnswer('compile', { expression: 'true' }, ask('true'))).toEqual({ outputType: 'bool', expression: 'true' });
    expect(cachedAnswer('compile', { expression: 'false' }, ask('false'))).toEqual({ outputType: 'bool', expression: 'false' });
    expect(asked).toEqual(['true', 'cost of true', 'false']);
    expect(readdirSync(path.join(cache, 'cel-answers'))).toHaveLength(1);
  });

  it('keeps nothing when turned off, and never keeps a failure', async () => {
    vi.stubEnv('SHAPER_GEN_NO_CEL_CACHE', '1');
    let cachedAnswer = await freshCache();
    let asked = 0;
    const ask = () => ++asked;
    cachedAnswer('compile', {}, ask);
    cachedAnswer('compile', {}, ask);
    expect(asked).toBe(2);
    vi.stubEnv('SHAPER_GEN_NO_CEL_CACHE', undefined);
    vi.resetModules();
    cachedAnswer = await freshCache();
    const failing = () => {
      throw new Error('engine failure');
    };
    expect(() => cachedAnswer('compile', { expression: 'x' }, failing)).toThrow('engine failure');
    expect(cachedAnswer('compile', { expression: 'x' }, () => 'answered')).toBe('answered');
  });
});
