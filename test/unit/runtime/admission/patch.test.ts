/**
 * The JSON Patch of a mutating webhook, decided by test: fast-json-patch's
 * diff, applied by an independent RFC 6902 implementation (rfc6902), must
 * reproduce the mutated object in every shape defaulters produce.
 */
import { applyPatch } from 'rfc6902';
import { describe, expect, it } from 'vitest';
import { diffObjects } from '../../../../runtime/admission/patch.js';

const base = () => ({
  apiVersion: 'shaper.io/v1alpha1',
  kind: 'Profile',
  metadata: { name: 'p', labels: { 'shaper.io/tier': 'gold', 'a~b': '1' }, annotations: { 'x/y~z': 'v' } },
  spec: { tier: 'gold', items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], empty: {}, n: 0, flag: false, nothing: null as null | string },
});

const cases: [string, (o: ReturnType<typeof base>) => unknown][] = [
  ['keys with / and ~ (label and annotation keys)', (o) => {
    o.metadata.labels['shaper.io/priority'] = '5';
    delete (o.metadata.labels as Record<string, string>)['a~b'];
    o.metadata.annotations['x/y~z'] = 'w';
  }],
  ['array shrinks from the middle', (o) => void o.spec.items.splice(1, 1)],
  ['array grows and reorders', (o) => void (o.spec.items = [{ name: 'z' }, ...o.spec.items, { name: 'd' }])],
  ['array emptied', (o) => void (o.spec.items = [])],
  ['property set to undefined is removed', (o) => void ((o.spec as Record<string, unknown>).tier = undefined)],
  ['falsy values replaced and added', (o) => void Object.assign(o.spec, { n: 1, flag: true, nothing: 'x', zero: 0, no: false, nil: null })],
  ['type changes object ↔ array ↔ scalar', (o) => void Object.assign(o.spec, { empty: [1], items: { first: 'a' }, tier: { name: 'gold' } })],
  ['metadata created from nothing', (o) => void ((o as Record<string, unknown>).metadata = { name: 'p', labels: { new: 'yes' } })],
  ['unicode and long strings', (o) => void (o.spec.tier = 'żółć ' + 'x'.repeat(10_000))],
];

describe('diffObjects', () => {
  it.each(cases)('%s', (_name, mutate) => {
    const original = base();
    const mutated = structuredClone(original);
    mutate(mutated);
    const patch = diffObjects(original, mutated);
    const applied = structuredClone(original);
    expect(applyPatch(applied, JSON.parse(JSON.stringify(patch))).every((error) => error === null)).toBe(true);
    expect(applied).toEqual(JSON.parse(JSON.stringify(mutated)));
  });

  it('is empty when nothing changed', () => {
    expect(diffObjects(base(), base())).toEqual([]);
  });
});
