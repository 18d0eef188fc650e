/**
 * The JSON Patch of a mutating webhook, decided by test: the diff, applied by
 * an independent RFC 6902 implementation (rfc6902), must reproduce the mutated
 * object in every shape defaulters produce; and it must write exactly the
 * operations fast-json-patch's compare (which it replaced) writes.
 */
import fastJsonPatch from 'fast-json-patch';
import { applyPatch } from 'rfc6902';
import { describe, expect, it } from 'vitest';
import { diffObjects, encodePatch, type PatchOperation } from '../../../../../runtime/webhook/admission/patch.js';
import { seededRandom } from '../../../../../support/seeded-random.js';

const base = () => ({
  apiVersion: 'shaper.io/v1alpha1',
  kind: 'Profile',
  metadata: { name: 'p', labels: { 'shaper.io/tier': 'gold', 'a~b': '1' } as Record<string, string>, annotations: { 'x/y~z': 'v' } },
  spec: { tier: 'gold', items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], empty: {}, n: 0, flag: false, nothing: null as null | string },
});

const cases: [string, (o: ReturnType<typeof base>) => unknown][] = [
  [
    'keys with / and ~ (label and annotation keys)',
    (o) => {
      o.metadata.labels['shaper.io/priority'] = '5';
      delete o.metadata.labels['a~b'];
      o.metadata.annotations['x/y~z'] = 'w';
    },
  ],
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

/** A random plain-JSON object and a random edit of it: keys added, removed and changed, arrays grown, shrunk and retyped. */
function randomPair(random: () => number): [Record<string, unknown>, Record<string, unknown>] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const keys = ['a', 'b', 'c/d', 'e~f', '0', '10', 'spec', 'x'];
  const value = (depth: number): unknown => {
    const roll = random();
    if (depth > 3 || roll < 0.35) return pick([0, 1, -2.5, '', 'v', 'w', true, false, null]);
    if (roll < 0.7) return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [pick(keys), value(depth + 1)]));
    return Array.from({ length: Math.floor(random() * 5) }, () => value(depth + 1));
  };
  const edit = (original: unknown, depth: number): unknown => {
    if (random() < 0.15) return value(depth);
    if (Array.isArray(original)) {
      const items = original.map((item) => (random() < 0.3 ? edit(item, depth + 1) : item));
      if (random() < 0.3) items.splice(Math.floor(random() * (items.length + 1)), random() < 0.5 ? 1 : 0, value(depth + 1));
      return items;
    }
    if (typeof original === 'object' && original !== null) {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(original)) if (random() > 0.15) copy[key] = random() < 0.3 ? edit(item, depth + 1) : item;
      if (random() < 0.3) copy[pick(keys)] = value(depth + 1);
      return copy;
    }
    return original;
  };
  const original = { metadata: value(1), spec: value(1), status: value(1) } as Record<string, unknown>;
  const mutated = Object.fromEntries(Object.entries(original).map(([key, item]) => [key, edit(item, 1)]));
  return [original, mutated];
}

describe('diffObjects against fast-json-patch', () => {
  it('writes the same operations, in the same order, for 5,000 random edits', () => {
    const random = seededRandom(0x5eed);
    let changed = 0;
    for (let i = 0; i < 5000; i++) {
      const [original, mutated] = randomPair(random);
      const ours = diffObjects(original, mutated);
      expect(ours, JSON.stringify([original, mutated])).toEqual(fastJsonPatch.compare(original, mutated));
      if (ours.length > 0) changed++;
    }
    expect(changed).toBeGreaterThan(3000);
  });
});

describe('encodePatch', () => {
  /** Node's own encoding of the document: what the API server decodes. */
  const nodeBase64 = (operations: readonly PatchOperation[]) => Buffer.from(JSON.stringify(operations)).toString('base64');
  const labels = (count: number, value: string): PatchOperation[] => Array.from({ length: count }, (_, index) => ({ op: 'add', path: `/metadata/labels/k${index}`, value }));

  it('is the base64 of the UTF-8 document, for small, multi-byte, growing and very large patches, call after call', () => {
    const patches: PatchOperation[][] = [
      [{ op: 'add', path: '/spec/replicas', value: 3 }],
      [{ op: 'replace', path: '/metadata/annotations/note', value: 'grüße, 日本語, emoji 🚀, and a lone surrogate \ud800' }],
      labels(2_000, 'x'.repeat(20)),
      labels(40, 'ü'.repeat(1_000)),
      labels(9_000, 'v'.repeat(40)),
      labels(10_500, 'w'.repeat(40)),
      labels(30_000, 'y'.repeat(40)),
      [{ op: 'remove', path: '/spec/old' }],
    ];
    const encoded = patches.map((operations) => encodePatch(operations));
    expect(encoded).toEqual(patches.map((operations) => nodeBase64(operations)));
    expect(JSON.parse(Buffer.from(encoded[1]!, 'base64').toString('utf8'))).toEqual(JSON.parse(JSON.stringify(patches[1])));
  });
});
