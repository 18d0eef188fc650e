/**
 * The object a defaulter changes (a change-tracking view of the decoded one)
 * gives exactly the patch that a deep copy did: for every way of changing an
 * object in defaulter-behaviours.ts and for random edit scripts, the complete
 * patch equals the one computed from a plain copy changed the same way (and
 * fast-json-patch's compare), applying it gives the changed object, and the
 * decoded object is never changed.
 */
import fastJsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { defaulterObject } from '../../../../../runtime/webhook/admission/defaulter-object.js';
import { asJsonValue, cloneJson, UnrepresentableValue } from '../../../../../runtime/webhook/admission/json-value.js';
import { diffObjects, type PatchOperation } from '../../../../../runtime/webhook/admission/patch.js';
import type { KubernetesObject } from '../../../../../runtime/webhook/contract.js';
import { seededRandom } from '../../../../../support/seeded-random.js';
import { BEHAVIOURS, widgetText, type Widget } from '../../../../fixtures/runtime/defaulter-behaviours.js';

/** The patch through the view, as admit() computes it for a decoded review. */
function trackedPatch(original: KubernetesObject, change: (object: KubernetesObject) => unknown): PatchOperation[] {
  const working = defaulterObject(original, true);
  return working.patch(change(working.object) ?? undefined);
}

/** The patch through a deep copy, as admit() computed it before the view. */
function copiedPatch(original: KubernetesObject, change: (object: KubernetesObject) => unknown): PatchOperation[] {
  const copy = cloneJson(original);
  return diffObjects(original, asJsonValue(change(copy) ?? copy) as KubernetesObject);
}

const applied = (original: unknown, patch: readonly PatchOperation[]) =>
  fastJsonPatch.applyPatch(structuredClone(original), structuredClone(patch) as fastJsonPatch.Operation[], true, false).newDocument;

describe('the view gives the patch a deep copy gives', () => {
  it.each(Object.entries(BEHAVIOURS))('%s', (name, behaviour) => {
    const change = behaviour as (object: KubernetesObject) => unknown;
    const original = JSON.parse(widgetText(name)) as KubernetesObject;
    const patch = trackedPatch(original, change);
    // The decoded object, untouched.
    expect(original).toEqual(JSON.parse(widgetText(name)));
    const copy = JSON.parse(widgetText(name)) as KubernetesObject;
    const expected = copiedPatch(copy, change);
    expect(patch).toEqual(expected);
    // What JSON.stringify makes of the object the handler left (or returned), the way plain JavaScript runs it.
    const plain = JSON.parse(widgetText(name)) as Widget;
    const returned = behaviour(plain);
    expect(applied(original, patch)).toEqual(JSON.parse(JSON.stringify(returned ?? plain)));
  });

  it('a behaviour that changes something gives a patch (each of them but the read-only one)', () => {
    const empty = Object.entries(BEHAVIOURS)
      .filter(([name, behaviour]) => trackedPatch(JSON.parse(widgetText(name)) as KubernetesObject, behaviour as (object: KubernetesObject) => unknown).length === 0)
      .map(([name]) => name);
    expect(empty).toEqual(['read everything, change nothing']);
  });

  it('sets the three defaults of the sample as the operations compare writes', () => {
    const original = JSON.parse('{"metadata":{"name":"p","labels":{"team":"a"}},"spec":{"description":"d","resources":{"cpu":"1"}}}') as KubernetesObject;
    const patch = trackedPatch(original, (object) => {
      const spec = object.spec as { tier?: string; priority?: number };
      spec.tier ??= 'bronze';
      spec.priority ??= 100;
      const metadata = object.metadata!;
      metadata.labels = { ...metadata.labels, 'shaper.io/tier': spec.tier };
    });
    expect(patch).toEqual([
      { op: 'add', path: '/spec/tier', value: 'bronze' },
      { op: 'add', path: '/spec/priority', value: 100 },
      { op: 'add', path: '/metadata/labels/shaper.io~1tier', value: 'bronze' },
    ]);
  });

  it('gives the same patch when the handler reaches more objects than the view lists before it maps them', () => {
    const text = JSON.stringify({ metadata: { name: 'many' }, spec: { items: Array.from({ length: 40 }, (_, index) => ({ name: `i${index}`, nested: { n: index, tags: ['a'] } })) } });
    const change = (object: KubernetesObject) => {
      const items = (object.spec as { items: { name: string; nested: { n: number; tags: string[] } }[] }).items;
      // The first item reached before the others, its nested object only after them.
      items[0]!.name = items[0]!.name.toUpperCase();
      for (const item of items.slice(1)) if (item.nested.n % 3 === 0) item.nested.tags.push('third');
      items[0]!.nested.tags.push('late');
      // Views reached early and late, moved after the lookup changed: written through their new places.
      items[0]!.nested = items[39]!.nested;
      items[0]!.nested.n = -1;
      items.reverse();
    };
    const original = JSON.parse(text) as KubernetesObject;
    const patch = trackedPatch(original, change);
    expect(original).toEqual(JSON.parse(text));
    expect(patch).toEqual(copiedPatch(JSON.parse(text) as KubernetesObject, change));
    expect(patch.length).toBeGreaterThan(40);
  });

  it('keeps a "__proto__" key as data through the view', () => {
    const text = '{"metadata":{"name":"p"},"spec":{"__proto__":{"polluted":true},"a":{"b":1}}}';
    const original = JSON.parse(text) as KubernetesObject;
    const patch = trackedPatch(original, (object) => {
      const spec = object.spec as Record<string, { b?: number; polluted?: boolean }>;
      spec.a!.b = 2;
      spec.__proto__!.polluted = false;
    });
    expect(patch).toEqual([
      { op: 'replace', path: '/spec/a/b', value: 2 },
      { op: 'replace', path: '/spec/__proto__/polluted', value: false },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(original).toEqual(JSON.parse(text));
  });

  it('names the field JSON cannot carry, as the copy did', () => {
    const original = JSON.parse(widgetText('w')) as KubernetesObject;
    const working = defaulterObject(original, true);
    const spec = working.object.spec as Record<string, unknown>;
    spec.self = spec;
    expect(() => working.patch(undefined)).toThrow(new UnrepresentableValue('spec.self', 'a reference to an enclosing object (a cycle)'));
    const other = defaulterObject(original, true);
    (other.object.spec as { items: unknown[] }).items[1] = Number.NaN;
    expect(() => other.patch(undefined)).toThrow(new UnrepresentableValue('spec.items[1]', 'NaN'));
    // Found by the diff itself, not only when settling a new value: a hole it reads, a function deep in a new object.
    const holed = defaulterObject(original, true);
    const items = (holed.object.spec as { items: unknown[] }).items;
    items.length = items.length + 2;
    expect(() => holed.patch(undefined)).toThrow(new UnrepresentableValue(`spec.items[${items.length - 2}]`, 'undefined'));
    const nested = defaulterObject(original, true);
    (nested.object.spec as Record<string, unknown>).extra = { list: [1, { run: () => 1 }] };
    expect(() => nested.patch(undefined)).toThrow(new UnrepresentableValue('spec.extra.list[1].run', 'a function'));
  });

  it("copies a test's object that JSON.parse could not have made (a Date), as before", () => {
    const at = new Date('2026-11-23T10:00:00Z');
    const original = { metadata: { name: 'p', creationTimestamp: at as unknown as string }, spec: {} } as KubernetesObject;
    const working = defaulterObject(original, false);
    (working.object.spec as { size?: number }).size = 1;
    expect(working.patch(undefined)).toEqual([
      { op: 'add', path: '/spec/size', value: 1 },
      { op: 'replace', path: '/metadata/creationTimestamp', value: '2026-11-23T10:00:00.000Z' },
    ]);
    expect(original.metadata!.creationTimestamp).toBe(at);
  });
});

describe('structuredClone of the view', () => {
  it('copies its current contents, aliases kept, as a plain object', () => {
    const original = JSON.parse(widgetText('w')) as Widget;
    const view = defaulterObject(original, true).object as Widget;
    view.spec.size = 2;
    view.spec.copy = view.spec.template;
    const cloned = structuredClone({ view, again: view.spec.template });
    expect(cloned.view).toEqual({ ...original, spec: { ...original.spec, size: 2, copy: original.spec.template } });
    expect(cloned.view.spec.copy).toBe(cloned.view.spec.template);
    expect(cloned.again).toBe(cloned.view.spec.template);
  });

  it('still refuses what it always refused', () => {
    expect(() => structuredClone({ f: () => 1 })).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    expect(() => structuredClone(new Proxy({}, {}))).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
  });
});

/** A random edit script: sets, deletes, array operations and aliasing, applied by path to whatever object it gets. */
function randomScript(random: () => number, original: unknown): ((object: Record<string, unknown>) => void)[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const keys = ['a', 'b', 'c/d', 'e~f', '0', '1', 'spec', 'x'];
  const value = (depth: number): unknown => {
    const roll = random();
    if (depth > 2 || roll < 0.4) return pick([0, 1, -2.5, '', 'v', true, false, null]);
    if (roll < 0.7) return Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [pick(keys), value(depth + 1)]));
    return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
  };
  // Paths into the original: where the script reads and writes.
  const paths: (string | number)[][] = [];
  const collect = (node: unknown, at: (string | number)[]) => {
    if (typeof node !== 'object' || node === null) return;
    paths.push(at);
    for (const [key, item] of Object.entries(node)) collect(item, [...at, Array.isArray(node) ? Number(key) : key]);
  };
  collect(original, []);
  const resolve = (object: unknown, at: readonly (string | number)[]): unknown =>
    at.reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), object);
  const containerAt = (object: unknown, at: readonly (string | number)[]) => {
    const node = resolve(object, at);
    return typeof node === 'object' && node !== null ? (node as Record<string, unknown> | unknown[]) : undefined;
  };
  return Array.from({ length: 1 + Math.floor(random() * 5) }, () => {
    const at = pick(paths);
    const from = pick(paths);
    const roll = random();
    const key = pick(keys);
    const where = random();
    const made = value(1);
    // The same script runs on several objects: each run gets its own copy of a new value.
    return (object: Record<string, unknown>) => {
      const fresh = structuredClone(made);
      const node = containerAt(object, at);
      if (!node) return;
      if (Array.isArray(node)) {
        if (roll < 0.2) node.push(fresh);
        else if (roll < 0.35) node.splice(Math.floor(where * (node.length + 1)), 1);
        else if (roll < 0.5) node.reverse();
        else if (roll < 0.6 && node.length > 0) node[node.length - 1] = containerAt(object, from) ?? fresh;
        else if (roll < 0.7) node.length = Math.max(0, node.length - 1);
        else if (node.length > 0) node[Math.floor(where * node.length)] = fresh;
        return;
      }
      const present = Object.keys(node).concat(key);
      if (roll < 0.3) node[key] = fresh;
      else if (roll < 0.5) Reflect.deleteProperty(node, present[Math.floor(where * present.length)]!);
      // Aliasing: a sub-object reachable twice, then written through one of the two paths.
      else if (roll < 0.7) node[key] = containerAt(object, from) ?? fresh;
      else if (roll < 0.8) node[key] = structuredClone(containerAt(object, from) ?? fresh);
      else if (roll < 0.9) Object.assign(node, { ...node, [key]: fresh });
      else node[key] = undefined;
    };
  });
}

describe('random edit scripts', () => {
  it('give the patch of a deep copy and of fast-json-patch compare, for 2,000 scripts', () => {
    const random = seededRandom(0xdefa);
    let changed = 0;
    for (let i = 0; i < 2000; i++) {
      const document = { metadata: { name: 'r', labels: { a: '1' } }, spec: { list: [{ a: 1 }, [1, [2]], 'v'], map: { 'c/d': { x: [true] }, 'e~f': null } }, status: { b: [] } };
      const text = JSON.stringify(document);
      const script = randomScript(random, document);
      const run = (object: KubernetesObject) => {
        for (const step of script) step(object);
      };
      const original = JSON.parse(text) as KubernetesObject;
      const outcome = (compute: () => PatchOperation[]) => {
        try {
          return { patch: compute() };
        } catch (error) {
          return { error: (error as Error).message };
        }
      };
      const tracked = outcome(() => trackedPatch(original, run));
      expect(original, text).toEqual(JSON.parse(text));
      // An alias of an enclosing object is a cycle: refused alike, naming the same field.
      expect(tracked).toEqual(outcome(() => copiedPatch(JSON.parse(text) as KubernetesObject, run)));
      if (!tracked.patch) continue;
      const { patch } = tracked;
      const plain = JSON.parse(text) as KubernetesObject;
      run(plain);
      const edited = JSON.parse(JSON.stringify(plain)) as KubernetesObject;
      expect(patch).toEqual(fastJsonPatch.compare(original, edited));
      expect(applied(original, patch)).toEqual(edited);
      if (patch.length > 0) changed++;
    }
    expect(changed).toBeGreaterThan(1000);
  });
});
