/**
 * Malformed ConversionReviews over real HTTPS, from valid ones of both review
 * versions: truncations, byte flips, a wrong JSON type at every field, prototype
 * keys at every object, deep nesting. Every answer is HTTP 200 and a
 * ConversionReview the API machinery decodes strictly, in the version asked in
 * and with the uid the request carried; a Success converts every object; the
 * server never reaches its last-resort 500 and keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileConversion } from '../../../sample/conversion/profile-conversion.js';
import { sendAll, type Answer } from '../../../support/faults/send.js';
import { judgeConversionResponses, type ConversionResponseVerdict } from '../../../support/oracle.js';
import { seededRandom } from '../../../support/seeded-random.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';

const REVIEW_VERSIONS = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'];
const WRONG_VALUES: unknown[] = [null, true, 0, -1.5, '', 'x', [], [1], {}, { toString: 1 }];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

interface Case {
  kind: string;
  path: string;
  body: Buffer;
  headers: Record<string, string>;
  /** The apiVersion the answer must have: the body's when it is JSON naming a review version, else either. */
  apiVersion?: string;
  /** The uid the answer must carry when the body is JSON (its string request.uid, else ''). */
  uid?: string;
  /** How many objects the body asks to convert, when it is JSON with an objects array. */
  objects?: number;
}

function base(apiVersion: string, desired: string) {
  const metadata = (name: string) => ({ name, namespace: 'team-a', uid: `uid-${name}`, labels: { team: 'a' }, annotations: { 'example.io/note': 'n' } });
  return {
    apiVersion,
    kind: 'ConversionReview',
    request: {
      uid: `review-${apiVersion.slice(-2)}-${desired.slice(-2)}`,
      desiredAPIVersion: desired,
      objects: [
        { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: metadata('a'), spec: { tier: 'gold', priority: 900, resources: { cpu: '500m' } }, status: { assignments: 1 } },
        { apiVersion: 'shaper.io/v1beta1', kind: 'Profile', metadata: metadata('b'), spec: { tier: 'silver', scheduling: { priority: 5, preemptible: true }, requests: { memory: '1Gi' } } },
      ],
    },
  };
}

function pathsIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...at, i], ...pathsIn(item, [...at, i])]);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...at, key], ...pathsIn(child, [...at, key])]);
}

function setAt(root: unknown, at: (string | number)[], value: unknown): void {
  const parent = at.slice(0, -1).reduce((node: any, key) => node[key], root);
  Object.defineProperty(parent, at.at(-1)!, { value, enumerable: true, writable: true, configurable: true });
}

function jsonCase(kind: string, text: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }): Case {
  const fault: Case = { kind, path: '/convert', body: Buffer.from(text), headers };
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fault;
  }
  const apiVersion = REVIEW_VERSIONS.find((version) => version === parsed?.apiVersion);
  const uid = typeof parsed?.request?.uid === 'string' ? parsed.request.uid : '';
  return { ...fault, ...(apiVersion && { apiVersion }), uid, ...(Array.isArray(parsed?.request?.objects) && { objects: parsed.request.objects.length }) };
}

function corpus(): Case[] {
  const next = seededRandom(21);
  const int = (max: number) => Math.floor(next() * max);
  const cases: Case[] = [];
  for (const apiVersion of REVIEW_VERSIONS) {
    for (const desired of ['shaper.io/v1beta1', 'shaper.io/v1alpha1']) {
      const review = base(apiVersion, desired);
      const text = JSON.stringify(review);
      cases.push(jsonCase('valid', text));
      for (let i = 0; i < 60; i++) cases.push(jsonCase('truncated', text.slice(0, int(text.length))));
      for (let i = 0; i < 150; i++) {
        const body = Buffer.from(text);
        body[int(body.length)] = int(256);
        cases.push({ ...jsonCase('byte flipped', body.toString('utf8')), body });
      }
      for (const at of pathsIn(review)) {
        for (const wrong of WRONG_VALUES) {
          const mutated = structuredClone(review);
          setAt(mutated, at, wrong);
          cases.push(jsonCase('wrong type', JSON.stringify(mutated)));
        }
      }
      const objects = [[], ...pathsIn(review).filter((at) => typeof at.reduce((node: any, key) => node[key], review) === 'object')];
      for (const at of objects) {
        for (const key of PROTO_KEYS) {
          const mutated = structuredClone(review);
          setAt(mutated, [...at, key], { polluted: true });
          cases.push(jsonCase('prototype key', JSON.stringify(mutated)));
        }
      }
      for (const depth of [900, 1001, 100_000]) {
        const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        cases.push(jsonCase(`nested ${depth} deep`, text.replace('"spec":{"tier":"gold"', `"spec":{"deep":${nested},"tier":"gold"`)));
      }
      cases.push(jsonCase('Content-Type', text, { 'Content-Type': 'application/yaml' }));
      const [before, after] = text.split('"gold"') as [string, string];
      cases.push({ ...jsonCase('invalid UTF-8', text), body: Buffer.concat([Buffer.from(`${before}"`), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(`gold"${after}`)]) });
    }
  }
  return cases;
}

let t: TestServer;
let cases: Case[];
let answers: Answer[];
let verdicts: ConversionResponseVerdict[];
beforeAll(async () => {
  t = await startTestServer({ webhooks: [], conversions: [ProfileConversion] });
  cases = corpus();
  answers = await sendAll({ port: t.addresses.webhook.port, ca: t.ca.cert }, cases, 8);
  verdicts = judgeConversionResponses(answers.map((answer) => answer.text));
}, 240_000);
afterAll(() => t.stop());

describe('malformed ConversionReviews', () => {
  it('every answer is HTTP 200 and a ConversionReview decoded strictly, in the version asked, with the uid sent; a Success converts every object', () => {
    expect(cases.length).toBeGreaterThan(2000);
    const wrong = cases.flatMap((fault, i) => {
      const answer = answers[i]!;
      const verdict = verdicts[i]!;
      const problems = [
        ...(answer.transportError ? [`transport: ${answer.transportError}`] : []),
        ...(answer.status === 200 ? [] : [`HTTP ${answer.status}`]),
        ...verdict.problems,
        ...(fault.apiVersion && verdict.apiVersion !== fault.apiVersion ? [`answered in ${verdict.apiVersion}`] : []),
        ...(fault.uid !== undefined && verdict.uid !== fault.uid ? [`uid ${JSON.stringify(verdict.uid)}, sent ${JSON.stringify(fault.uid)}`] : []),
        ...(verdict.status === 'Success' && verdict.convertedObjects.length !== fault.objects ? [`Success with ${verdict.convertedObjects.length} of ${fault.objects} objects`] : []),
        ...(verdict.status === 'Failure' && !verdict.message ? ['Failure without a message'] : []),
      ];
      return problems.length > 0 ? [{ kind: fault.kind, body: fault.body.toString('utf8').slice(0, 300), problems }] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('covers every class, answering some of each as the API server would read them', () => {
    const byKind: Record<string, Record<string, number>> = {};
    cases.forEach((fault, i) => {
      const counts = (byKind[fault.kind] ??= {});
      const status = verdicts[i]!.status ?? 'none';
      counts[status] = (counts[status] ?? 0) + 1;
    });
    console.log(`conversion fuzz: ${cases.length} cases; results by class: ${JSON.stringify(byKind)}`);
    expect(Object.keys(byKind).sort()).toEqual([
      'Content-Type',
      'byte flipped',
      'invalid UTF-8',
      'nested 100000 deep',
      'nested 1001 deep',
      'nested 900 deep',
      'prototype key',
      'truncated',
      'valid',
      'wrong type',
    ]);
    // Within the depth limit a nested field is converted; beyond it the review is refused.
    expect([byKind['nested 900 deep'], byKind['nested 1001 deep'], byKind['nested 100000 deep']]).toEqual([{ Success: 4 }, { Failure: 4 }, { Failure: 4 }]);
    expect(byKind.valid).toEqual({ Success: 4 });
  });

  it('never reached the last-resort 500, and serves on', async () => {
    expect(t.logs.filter((line) => line.msg === 'conversion endpoint failed')).toEqual([]);
    const review = base('apiextensions.k8s.io/v1', 'shaper.io/v1beta1');
    const res = await t.post('/convert', review);
    expect([res.status, res.json.response.uid, res.json.response.result, res.json.response.convertedObjects.length]).toEqual([200, review.request.uid, { status: 'Success' }, 2]);
  });
});
