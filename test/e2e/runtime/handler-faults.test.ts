/**
 * Handler faults over real HTTPS on loopback: whatever a handler throws, or
 * leaves in the object, the API server gets an AdmissionReview with the uid,
 * and the fault is counted and logged; handler text is bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { faultWebhooks } from '../../fixtures/runtime/fault-handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhooks: faultWebhooks });
});
afterAll(() => t.stop());

const fault = (spec: Record<string, unknown>) => admissionReview({ object: { apiVersion: 'example.io/v1', kind: 'Fault', metadata: { name: 'f1', namespace: 'team-a' }, spec } });

const internalError = (uid: string, webhook: string, detail: string) => ({
  status: 200,
  json: {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid,
      allowed: false,
      status: { metadata: {}, status: 'Failure', code: 500, reason: 'InternalError', message: `internal error in webhook ${webhook}: ${detail}` },
    },
  },
});

async function post(path: string, review: ReturnType<typeof fault>) {
  const res = await t.post(path, review);
  return { status: res.status, json: res.json };
}

const errorsCounted = async (path: string) =>
  Number(new RegExp(`^shaper_webhook_handler_errors_total\\{webhook="${path}"\\} (\\d+)$`, 'm').exec((await t.get('metrics', '/metrics')).text)?.[1] ?? 0);

describe('a handler that throws something other than an Error', () => {
  it.each([
    ['null-prototype', 'a null-prototype object'],
    ['string', 'a plain string'],
    ['undefined', 'undefined'],
    ['message-getter', 'a thrown HostileError that cannot be described'],
    ['revoked-proxy', "Cannot perform 'get' on a proxy that has been revoked"],
  ])('throw %s: a 500 denial with the uid, counted and logged', async (mode, detail) => {
    const before = await errorsCounted('/validate-fault');
    const logged = t.logs.filter((line) => line.msg === 'handler failed').length;
    const review = fault({ mode });
    expect(await post('/validate-fault', review)).toEqual(internalError(review.request!.uid, 'validate-fault.example.io (/validate-fault)', detail));
    expect({ counted: (await errorsCounted('/validate-fault')) - before, logged: t.logs.filter((line) => line.msg === 'handler failed').length - logged }).toEqual({ counted: 1, logged: 1 });
  });
});

describe('a defaulter that leaves what JSON cannot carry', () => {
  it.each([
    ['symbol', 'spec.s: a symbol is not representable in JSON'],
    ['function', 'spec.f: a function is not representable in JSON'],
    ['bigint', 'spec.b: a BigInt is not representable in JSON'],
    ['nan', 'spec.n: NaN is not representable in JSON'],
    ['infinity', 'spec.tags[1]: -Infinity is not representable in JSON'],
    ['cycle', 'spec.self: a reference to an enclosing object (a cycle) is not representable in JSON'],
    ['undefined-in-array', 'spec.tags[1]: undefined is not representable in JSON'],
    ['map', 'spec.m: a Map is not representable in JSON'],
    ['label-symbol', 'metadata.labels[example.io/x]: a symbol is not representable in JSON'],
  ])('%s: a 500 denial naming the field, no patch', async (mode, detail) => {
    const before = await errorsCounted('/mutate-fault');
    const review = fault({ mode });
    expect(await post('/mutate-fault', review)).toEqual(internalError(review.request!.uid, 'mutate-fault.example.io (/mutate-fault)', detail));
    expect((await errorsCounted('/mutate-fault')) - before).toBe(1);
  });

  it('patches what JSON.stringify would write: a Date as its ISO string, a property set to undefined removed', async () => {
    const review = fault({ mode: 'date-and-undefined', gone: 'here' });
    const res = await post('/mutate-fault', review);
    const { patch, ...response } = res.json.response;
    expect({ response, patch: JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) }).toEqual({
      response: { uid: review.request!.uid, allowed: true, patchType: 'JSONPatch' },
      patch: [
        { op: 'remove', path: '/spec/gone' },
        { op: 'add', path: '/spec/at', value: '1970-01-01T00:00:00.000Z' },
      ],
    });
  });
});

describe('handler text is bounded like the API server bounds warnings', () => {
  it('cuts a denial message at 4096 runes', async () => {
    const review = fault({ mode: 'huge-denial' });
    const res = await t.post('/validate-fault', review);
    expect({ status: res.status, bytes: Buffer.byteLength(res.text) < 16 * 1024, json: res.json }).toEqual({
      status: 200,
      bytes: true,
      json: {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: review.request!.uid, allowed: false, status: { metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden', message: '€'.repeat(4096) } },
      },
    });
  });

  it('keeps warnings whole up to 4096 runes in total, then cuts each to 256 and stops once 4096 are written', async () => {
    const review = fault({ mode: 'huge-warnings' });
    const warning = (i: number) => `warning ${i} ${'x'.repeat(300)}`;
    // 13 whole warnings (about 310 runes each) fit; the 14th overflows: those 14 are replayed cut to 256 runes, then 2 more until 4096 are written.
    const expected = Array.from({ length: 16 }, (_, i) => warning(i).slice(0, 256));
    expect((await post('/validate-fault', review)).json.response).toEqual({ uid: review.request!.uid, allowed: true, warnings: expected });
  });
});
