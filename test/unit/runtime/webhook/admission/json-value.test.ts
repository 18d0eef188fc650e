/** The defaulter's working copy (cloneJson) and the check of what it returned (asJsonValue). */
import { describe, expect, it } from 'vitest';
import { asJsonValue, cloneJson, UnrepresentableValue } from '../../../../../runtime/webhook/admission/json-value.js';

const nested = (depth: number): unknown => {
  let value: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) value = { child: value };
  return value;
};

describe('cloneJson', () => {
  it('copies what JSON.parse made, sharing no object or array with it', () => {
    const original = JSON.parse('{"metadata":{"name":"p","labels":{"a":"1"}},"spec":{"tiers":[{"name":"gold","weight":2}],"empty":{},"none":null,"on":true}}') as {
      metadata: { labels: Record<string, string> };
      spec: { tiers: { weight: number }[] };
    };
    const copy = cloneJson(original);
    expect(copy).toEqual(original);
    copy.metadata.labels.b = '2';
    copy.spec.tiers[0]!.weight = 3;
    copy.spec.tiers.push({ weight: 1 });
    expect(original).toEqual(JSON.parse('{"metadata":{"name":"p","labels":{"a":"1"}},"spec":{"tiers":[{"name":"gold","weight":2}],"empty":{},"none":null,"on":true}}'));
  });

  it('keeps a "__proto__" key as data, as JSON.parse does, without changing the prototype', () => {
    const original = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = cloneJson(original);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')).toEqual({ value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('copies anything JSON.parse does not make (a Date a test put in) with structuredClone', () => {
    const at = new Date('2026-11-23T10:00:00Z');
    const copy = cloneJson({ metadata: { creationTimestamp: at } });
    expect(copy.metadata.creationTimestamp).toBeInstanceOf(Date);
    expect(copy.metadata.creationTimestamp).not.toBe(at);
    expect(copy.metadata.creationTimestamp.getTime()).toBe(at.getTime());
  });
});

describe('asJsonValue', () => {
  it('returns a plain JSON value itself, without copying', () => {
    const value = { a: [1, 'x', null, { b: false }] };
    expect(asJsonValue(value)).toBe(value);
  });

  it('copies a value nested deeper than the plain check goes, unchanged', () => {
    const deep = nested(1200);
    const result = asJsonValue(deep);
    expect(result).not.toBe(deep);
    expect(result).toEqual(deep);
  });

  it('names the field of a cycle', () => {
    const looped: Record<string, unknown> = { spec: { items: [] as unknown[] } };
    (looped.spec as { items: unknown[] }).items.push(looped);
    expect(() => asJsonValue(looped)).toThrow(new UnrepresentableValue('spec.items[0]', 'a reference to an enclosing object (a cycle)'));
  });

  it('writes toJSON results and leaves out properties set to undefined, as JSON.stringify does', () => {
    const at = new Date('2026-11-23T10:00:00Z');
    expect(asJsonValue({ at, gone: undefined, n: new Number(3) })).toEqual({ at: '2026-11-23T10:00:00.000Z', n: 3 });
  });
});
