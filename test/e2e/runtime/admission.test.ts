/**
 * AdmissionReview over real HTTPS on loopback: decisions, denials, patches,
 * warnings, both review versions, handler failures and deadlines.
 */
import { applyPatch } from 'rfc6902';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionDenial } from 'shaper-gen';
import { admissionReview } from 'shaper-gen/testing';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { OtherCopyValidator, otherCopy } from '../../fixtures/runtime/other-copy-handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhooks });
});
afterAll(() => t.stop());

const widget = (spec: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: 'example.io/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'team-a', ...(labels ? { labels } : {}) },
  spec,
});

const decodePatch = (patch: string) => JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));

describe('validating webhooks', () => {
  it('allow with warnings from ctx.warn and the return value, uid copied, in v1', async () => {
    const review = admissionReview({ object: widget({ size: 10 }) });
    const res = await t.post('/validate-widget', review);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: review.request!.uid, allowed: true, warnings: ['checked by the widget validator', 'size 10 is the maximum'] },
    });
  });

  it('answer v1beta1 in v1beta1', async () => {
    const review = admissionReview({ object: widget({ size: 1 }) }, 'admission.k8s.io/v1beta1');
    const res = await t.post('/validate-widget', review);
    expect(res.json.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(res.json.response).toMatchObject({ uid: review.request!.uid, allowed: true });
  });

  it('deny Invalid with 422, the NewInvalid message and one cause per field', async () => {
    const res = await t.post('/validate-widget', admissionReview({ object: widget({ size: 11 }) }));
    expect(res.json.response.allowed).toBe(false);
    expect(res.json.response.status).toEqual({
      metadata: {},
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'Widget.example.io "w1" is invalid: [spec.size: Invalid value: 11: must be at most 10, spec.mode: Forbidden: cannot be set with a large size]',
      details: {
        name: 'w1',
        group: 'example.io',
        kind: 'Widget',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: 11: must be at most 10', field: 'spec.size' },
          { reason: 'FieldValueForbidden', message: 'Forbidden: cannot be set with a large size', field: 'spec.mode' },
        ],
      },
    });
  });

  it('deny Required, Forbidden (403) and Denied with a custom code', async () => {
    const required = await t.post('/validate-widget', admissionReview({ object: widget({}) }));
    expect(required.json.response.status.message).toBe('Widget.example.io "w1" is invalid: spec.size: Required value: a widget needs a size');
    const forbidden = await t.post('/validate-widget', admissionReview({ object: widget({ mode: 'forbidden' }), userInfo: { username: 'mallory' } }));
    expect(forbidden.json.response.status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'user mallory may not create widgets' });
    const teapot = await t.post('/validate-widget', admissionReview({ object: widget({ mode: 'teapot' }) }));
    expect(teapot.json.response.status).toMatchObject({ code: 418, message: 'no tea' });
  });

  it('route UPDATE to validateUpdate with the old object and DELETE to validateDelete', async () => {
    const update = await t.post('/validate-widget', admissionReview({ oldObject: widget({ mode: 'a' }), object: widget({ mode: 'b' }) }));
    expect(update.json.response.status).toMatchObject({ code: 422, details: { causes: [{ field: 'spec.mode', message: 'Invalid value: "b": field is immutable' }] } });
    const del = await t.post('/validate-widget', admissionReview({ operation: 'DELETE', oldObject: widget({}, { 'example.io/protected': 'true' }) }));
    expect(del.json.response).toMatchObject({ allowed: false, status: { code: 403, message: 'widget is protected' } });
    const delOk = await t.post('/validate-widget', admissionReview({ operation: 'DELETE', oldObject: widget({}) }));
    expect(delOk.json.response.allowed).toBe(true);
  });

  it('send CONNECT only to validators that implement validateConnect', async () => {
    const exec = { operation: 'CONNECT' as const, options: { kind: 'PodExecOptions', apiVersion: 'v1' } };
    expect((await t.post('/validate-widget-connect', admissionReview(exec))).json.response.status.message).toBe('exec is not allowed');
    expect((await t.post('/validate-widget', admissionReview(exec))).json.response).toEqual({ uid: expect.any(String), allowed: true });
  });

  it('never return a patch from a validating webhook', async () => {
    const res = await t.post('/validate-widget', admissionReview({ object: widget({ size: 2 }) }));
    expect(res.json.response.patch).toBeUndefined();
    expect(res.json.response.patchType).toBeUndefined();
  });

  it('accept the ?timeout= query the API server appends', async () => {
    const res = await t.post('/validate-widget?timeout=10s', admissionReview({ object: widget({ size: 2 }) }));
    expect(res.json.response.allowed).toBe(true);
  });
});

describe('mutating webhooks', () => {
  it('answer a base64 JSONPatch that turns the object into the defaulted one', async () => {
    const object = widget({ tags: ['keep', 'drop', 'also'] }, { 'app/x~y': 'z' });
    const res = await t.post('/mutate-widget', admissionReview({ object }));
    expect(res.json.response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    const patched = structuredClone(object);
    expect(applyPatch(patched, decodePatch(res.json.response.patch)).every((r) => r === null)).toBe(true);
    expect(patched).toEqual(widget({ tags: ['keep', 'also'], size: 3 }, { 'app/x~y': 'z', 'example.io/size': '3' }));
  });

  it('answer no patch fields at all when nothing changed (idempotent re-invocation)', async () => {
    const res = await t.post('/mutate-widget', admissionReview({ object: widget({ size: 3 }, { 'example.io/size': '3' }) }));
    expect(res.json.response).toEqual({ uid: expect.any(String), allowed: true });
  });

  it('use a returned replacement object', async () => {
    const object = widget({ mode: 'replace', size: 9 });
    const res = await t.post('/mutate-widget', admissionReview({ object }));
    const patched = structuredClone(object);
    applyPatch(patched, decodePatch(res.json.response.patch));
    expect(patched.spec).toEqual({ size: 1, mode: 'replaced' });
  });

  it('never patch on DELETE', async () => {
    const res = await t.post('/mutate-widget', admissionReview({ operation: 'DELETE', oldObject: widget({}) }));
    expect(res.json.response).toEqual({ uid: expect.any(String), allowed: true });
  });

  it('pass dryRun through to the handler', async () => {
    const res = await t.post('/mutate-widget', admissionReview({ object: widget({ size: 3 }), dryRun: true }));
    expect(res.json.response.warnings).toEqual(['dry run']);
  });
});

describe('handler failures', () => {
  it('deny a throwing handler with 500 naming the webhook, log the stack, count it, keep serving', async () => {
    const res = await t.post('/validate-widget', admissionReview({ object: widget({ mode: 'throw' }) }));
    expect(res.status).toBe(200);
    expect(res.json.response).toMatchObject({
      allowed: false,
      status: { code: 500, reason: 'InternalError', message: 'internal error in webhook validate-widget.example.io (/validate-widget): widget validator exploded' },
    });
    const logged = t.logs.find((line) => line.msg === 'handler failed');
    expect((logged?.err as { stack: string }).stack).toContain('widget validator exploded');
    const rejected = await t.post('/validate-widget', admissionReview({ object: widget({ mode: 'reject' }) }));
    expect(rejected.json.response.status.message).toContain('async failure');
    const defaulter = await t.post('/mutate-widget', admissionReview({ object: widget({ mode: 'throw' }) }));
    expect(defaulter.json.response.status).toMatchObject({ code: 500 });
    expect((await t.post('/validate-widget', admissionReview({ object: widget({ size: 1 }) }))).json.response.allowed).toBe(true);
    const metrics = (await t.get('metrics', '/metrics')).text;
    expect(metrics).toMatch(/shaper_webhook_handler_errors_total\{webhook="\/validate-widget"\} 2/);
  });

  it('deny with 504 when the deadline passes under failurePolicy Fail, aborting ctx.signal', async () => {
    const res = await t.post('/validate-widget-slow', admissionReview({ object: widget({}) }));
    expect(res.json.response).toMatchObject({ allowed: false, status: { code: 504, reason: 'Timeout' } });
    expect(res.json.response.status.message).toMatch(/did not answer within 800 ms/);
  });

  it('allow with a warning when the deadline passes under failurePolicy Ignore', async () => {
    const res = await t.post('/validate-widget-ignore', admissionReview({ object: widget({}) }, 'admission.k8s.io/v1beta1'));
    expect(res.json.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(res.json.response.allowed).toBe(true);
    expect(res.json.response.warnings[0]).toMatch(/allowed because its failurePolicy is Ignore/);
    expect((await t.get('metrics', '/metrics')).text).toMatch(/shaper_webhook_handler_timeouts_total\{webhook="\/validate-widget-ignore"\} 1/);
  });
});

describe('denials made by another copy of shaper-gen', () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startTestServer({ webhooks: [OtherCopyValidator] });
  });
  afterAll(() => other.stop());

  it('answer as denials, as the same copy would, not as handler errors', async () => {
    expect(otherCopy.AdmissionDenial).not.toBe(AdmissionDenial);
    const forbidden = admissionReview({ object: widget({ size: 1 }) });
    expect((await other.post('/validate-other-copy', forbidden)).json.response).toEqual({
      uid: forbidden.request!.uid,
      allowed: false,
      status: { metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden', message: 'widgets are closed' },
    });
    const invalid = admissionReview({ object: widget({ size: 11 }) });
    expect((await other.post('/validate-other-copy', invalid)).json.response).toEqual({
      uid: invalid.request!.uid,
      allowed: false,
      status: {
        metadata: {},
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'Widget.example.io "w1" is invalid: spec.size: Invalid value: 11: must be at most 10',
        details: { name: 'w1', group: 'example.io', kind: 'Widget', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 11: must be at most 10', field: 'spec.size' }] },
      },
    });
    expect(other.logs.filter((line) => line.msg === 'handler failed')).toEqual([]);
  });
});
