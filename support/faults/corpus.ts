/**
 * A deterministic corpus of malformed admission requests, from valid Profile
 * reviews (v1 and v1beta1, CREATE and UPDATE, validating and mutating paths):
 * truncations, byte flips, a wrong JSON type at every field, prototype keys at
 * every object, deep nesting, bodies around the size limit, invalid UTF-8, and
 * wrong Content-Type or Content-Encoding. Shared by bench/faults/run.ts (the
 * full corpus) and the e2e fuzz test (a sample of every class).
 */
import { gzipSync } from 'node:zlib';
import { seededRandom } from '../seeded-random.ts';

export interface FaultCase {
  /** The class of fault, for the tally. */
  kind: string;
  path: '/validate-profile' | '/mutate-profile';
  body: Buffer;
  headers: Record<string, string>;
  /**
   * The uid the answer must carry: the body's request.uid ('' when it has
   * none) for a body that is JSON; undefined for one that is not, whose
   * answer may carry '' or a uid the body's text holds.
   */
  uid: string | undefined;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const WRONG_VALUES: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'x', [], [1], {}, { toString: 1 }, nestedArray(50)];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const PROTO_VALUES: unknown[] = [{}, { polluted: true }, null, 'x'];

function nestedArray(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

function profile(tier: string) {
  return { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'fast', namespace: 'team-a', labels: { team: 'a' } }, spec: { tier, resources: { cpu: '500m', memory: '1Gi' } } };
}

/** The valid reviews every fault starts from. */
export function baseReviews(): { path: FaultCase['path']; review: Record<string, any> }[] {
  const bases: { path: FaultCase['path']; review: Record<string, any> }[] = [];
  for (const apiVersion of ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']) {
    for (const [path, operation] of [
      ['/validate-profile', 'UPDATE'],
      ['/mutate-profile', 'CREATE'],
    ] as const) {
      bases.push({
        path,
        review: {
          apiVersion,
          kind: 'AdmissionReview',
          request: {
            uid: `uid-${apiVersion.slice(-2)}-${path.slice(1)}`,
            kind: { group: 'shaper.io', version: 'v1alpha1', kind: 'Profile' },
            resource: { group: 'shaper.io', version: 'v1alpha1', resource: 'profiles' },
            name: 'fast',
            namespace: 'team-a',
            operation,
            userInfo: { username: 'alice', groups: ['system:authenticated'], extra: { scopes: ['a'] } },
            object: profile('gold'),
            oldObject: operation === 'UPDATE' ? profile('gold') : null,
            dryRun: false,
            options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'UPDATE' ? 'UpdateOptions' : 'CreateOptions' },
          },
        },
      });
    }
  }
  return bases;
}

/** Every path in a JSON value, objects, arrays and leaves alike (the root excluded). */
function pathsIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...at, i], ...pathsIn(item, [...at, i])]);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...at, key], ...pathsIn(child, [...at, key])]);
}

function setAt(root: unknown, at: (string | number)[], value: unknown): void {
  const parent = at.slice(0, -1).reduce((node: any, key) => node[key], root);
  Object.defineProperty(parent, at.at(-1)!, { value, enumerable: true, writable: true, configurable: true });
}

function uidOf(text: string): string | undefined {
  try {
    const uid = JSON.parse(text)?.request?.uid;
    return typeof uid === 'string' ? uid : '';
  } catch {
    return undefined;
  }
}

function jsonCase(kind: string, path: FaultCase['path'], text: string, headers: Record<string, string> = JSON_HEADERS): FaultCase {
  return { kind, path, body: Buffer.from(text), headers, uid: uidOf(text) };
}

function bytesCase(kind: string, path: FaultCase['path'], body: Buffer): FaultCase {
  return { kind, path, body, headers: JSON_HEADERS, uid: uidOf(body.toString('utf8')) };
}

/** The full corpus: about 11,000 cases. `sample` keeps every n-th case of each class (the e2e test's cut). */
export function faultCorpus(options: { seed?: number; sample?: number } = {}): FaultCase[] {
  const next = seededRandom(options.seed ?? 1);
  const int = (max: number) => Math.floor(next() * max);
  const cases: FaultCase[] = [];
  for (const { path, review } of baseReviews()) {
    const text = JSON.stringify(review);
    cases.push(jsonCase('valid', path, text));
    for (let i = 0; i < 300; i++) cases.push(jsonCase('truncated', path, text.slice(0, int(text.length))));
    for (let i = 0; i < 1500; i++) {
      const body = Buffer.from(text);
      body[int(body.length)] = int(256);
      cases.push(bytesCase('byte flipped', path, body));
    }
    for (let i = 0; i < 150; i++) {
      const body = Buffer.from(text);
      for (let j = 0; j < 8; j++) body[int(body.length)] = int(256);
      cases.push(bytesCase('8 bytes flipped', path, body));
    }
    for (const at of pathsIn(review)) {
      for (const wrong of WRONG_VALUES) {
        const mutated = structuredClone(review);
        setAt(mutated, at, wrong);
        cases.push(jsonCase('wrong type', path, JSON.stringify(mutated)));
      }
    }
    const objects = [[], ...pathsIn(review).filter((at) => isPlainObject(at.reduce((node: any, key) => node[key], review)))];
    for (const at of objects) {
      for (const key of PROTO_KEYS) {
        for (const value of PROTO_VALUES) {
          const mutated = structuredClone(review);
          setAt(mutated, [...at, key], value);
          cases.push(jsonCase('prototype key', path, JSON.stringify(mutated)));
        }
      }
    }
    for (const depth of [999, 1000, 1001, 5000, 10_000, 100_000, 1_000_000]) {
      for (const at of [['apiVersion'], ['request', 'name'], ['request', 'kind', 'group'], ['request', 'object', 'spec'], ['request', 'options']]) {
        for (const open of ['[', '{"a":']) {
          const close = open === '[' ? ']' : '}';
          const marker = '"__deep__"';
          const mutated = structuredClone(review);
          setAt(mutated, at, '__deep__');
          const deep = open.repeat(depth) + (open === '[' ? '' : '1') + close.repeat(depth);
          cases.push(jsonCase(`nested ${depth} deep`, path, JSON.stringify(mutated).replace(marker, deep)));
        }
      }
    }
    for (const invalid of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]]) {
      for (let i = 0; i < 12; i++) {
        const at = int(text.length);
        cases.push(bytesCase('invalid UTF-8', path, Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(invalid), Buffer.from(text.slice(at))])));
      }
      const inName = text.replace('"fast"', `"fa${Buffer.from(invalid).toString('latin1')}st"`);
      cases.push(bytesCase('invalid UTF-8', path, Buffer.from(inName, 'latin1')));
    }
    for (const type of [
      'text/plain',
      'application/json-patch+json',
      'application/yaml',
      'application/x-www-form-urlencoded',
      'APPLICATION/JSON',
      'application/json; charset=utf-8',
      'application/json;;',
      'json',
    ]) {
      cases.push({ ...jsonCase('Content-Type', path, text), headers: { 'Content-Type': type } });
    }
    cases.push({ ...jsonCase('Content-Type', path, text), headers: {} });
    for (const encoding of ['gzip', 'deflate', 'br', 'identity', 'GZIP']) {
      const body = encoding.toLowerCase() === 'gzip' ? gzipSync(text) : Buffer.from(text);
      cases.push({ kind: 'Content-Encoding', path, body, headers: { ...JSON_HEADERS, 'Content-Encoding': encoding }, uid: uidOf(body.toString('utf8')) ?? '' });
    }
  }
  const sampled = options.sample ? sampleEach(cases, options.sample) : cases;
  return [...sampled, ...largeBodies()];
}

/** Reviews just under and just over the default 7 MiB limit (maxRequestBytes 7340032). */
export function largeBodies(): FaultCase[] {
  const [v1Validate, , , v1Mutate] = baseReviews();
  return [
    { ...v1Validate!, target: 6.9 * 1024 * 1024 },
    { ...v1Validate!, target: 7.1 * 1024 * 1024 },
    { ...v1Mutate!, target: 6.9 * 1024 * 1024 },
    { ...v1Mutate!, target: 7.1 * 1024 * 1024 },
  ].map(({ path, review, target }) => {
    const mutated = structuredClone(review);
    const bare = JSON.stringify(mutated).length;
    mutated.request.object.metadata.annotations = { padding: 'x'.repeat(Math.floor(target) - bare - 40) };
    return jsonCase(`${(target / 1024 / 1024).toFixed(1)} MiB`, path, JSON.stringify(mutated));
  });
}

function sampleEach(cases: FaultCase[], every: number): FaultCase[] {
  const seen = new Map<string, number>();
  return cases.filter((c) => {
    const n = seen.get(c.kind) ?? 0;
    seen.set(c.kind, n + 1);
    return n % every === 0;
  });
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
