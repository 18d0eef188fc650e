/**
 * Reviews the API server can send that the server will not process (over
 * maxRequestBytes, nested too deep): HTTP 200 with the request's uid, answered
 * under the webhook's failurePolicy — denied with the code under Fail,
 * allowed with the reason as a warning under Ignore (README, "Design notes").
 * Without a uid, or with a header no API server sends, the refusal is
 * status-coded as in malformed.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { MAX_NESTING_DEPTH } from '../../../runtime/webhook/admission/review.js';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';

const LIMIT = 64 * 1024;
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhooks, config: { webhook: { maxRequestBytes: LIMIT } } });
});
afterAll(() => t.stop());

const widget = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } };
const tooLarge = (apiVersion: 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1' = 'admission.k8s.io/v1') => {
  const review = admissionReview({ object: { ...widget, metadata: { name: 'w', annotations: { padding: 'x'.repeat(70 * 1024) } } } }, apiVersion);
  return { uid: review.request!.uid, body: JSON.stringify(review) };
};
const tooDeep = () => {
  const review = admissionReview({ object: { ...widget, spec: { nested: JSON.parse('['.repeat(MAX_NESTING_DEPTH) + ']'.repeat(MAX_NESTING_DEPTH)) } } });
  return { uid: review.request!.uid, body: JSON.stringify(review) };
};
const errored = (apiVersion: string, uid: string, code: number, reason: string, message: string) => ({
  apiVersion,
  kind: 'AdmissionReview',
  response: { uid, allowed: false, status: { metadata: {}, status: 'Failure', code, reason, message } },
});
const allowedWithWarning = (apiVersion: string, uid: string, warning: string) => ({
  apiVersion,
  kind: 'AdmissionReview',
  response: { uid, allowed: true, warnings: [warning] },
});
const deepMessage = `request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`;

describe('a review the server will not process', () => {
  it('over maxRequestBytes, failurePolicy Fail: HTTP 200, denied with 413 and the reason', async () => {
    const { uid, body } = tooLarge();
    const res = await t.post('/validate-widget', body);
    expect({ status: res.status, json: res.json }).toEqual({
      status: 200,
      json: errored(
        'admission.k8s.io/v1',
        uid,
        413,
        'RequestEntityTooLarge',
        `webhook validate-widget.example.io (/validate-widget) cannot review this request: request body of ${Buffer.byteLength(body)} bytes or more exceeds the limit of ${LIMIT} bytes`,
      ),
    });
    const streamed = await t.post('/validate-widget', body, { chunked: true });
    expect({ status: streamed.status, json: streamed.json }).toEqual({
      status: 200,
      json: errored(
        'admission.k8s.io/v1',
        uid,
        413,
        'RequestEntityTooLarge',
        expect.stringMatching(
          /^webhook validate-widget\.example\.io \(\/validate-widget\) cannot review this request: request body of \d+ bytes or more exceeds the limit of 65536 bytes$/,
        ) as never,
      ),
    });
  });

  it('over maxRequestBytes, failurePolicy Ignore: HTTP 200, allowed with the reason as a warning, in the review version asked', async () => {
    const { uid, body } = tooLarge('admission.k8s.io/v1beta1');
    const res = await t.post('/validate-widget-ignore', body);
    expect({ status: res.status, json: res.json }).toEqual({
      status: 200,
      json: allowedWithWarning(
        'admission.k8s.io/v1beta1',
        uid,
        `webhook validate-widget-ignore.example.io (/validate-widget-ignore) cannot review this request: request body of ${Buffer.byteLength(body)} bytes or more exceeds the limit of ${LIMIT} bytes; allowed because its failurePolicy is Ignore`,
      ),
    });
  });

  it('nested deeper than the limit: denied with 400 under Fail, allowed with a warning under Ignore', async () => {
    const { uid, body } = tooDeep();
    const fail = await t.post('/validate-widget', body);
    expect({ status: fail.status, json: fail.json }).toEqual({
      status: 200,
      json: errored('admission.k8s.io/v1', uid, 400, 'BadRequest', `webhook validate-widget.example.io (/validate-widget) cannot review this request: ${deepMessage}`),
    });
    const ignore = await t.post('/validate-widget-ignore', body);
    expect({ status: ignore.status, json: ignore.json }).toEqual({
      status: 200,
      json: allowedWithWarning(
        'admission.k8s.io/v1',
        uid,
        `webhook validate-widget-ignore.example.io (/validate-widget-ignore) cannot review this request: ${deepMessage}; allowed because its failurePolicy is Ignore`,
      ),
    });
  });

  it('status-coded when the body names no uid, or a header says no API server sent it', async () => {
    const noUid = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { object: JSON.parse('['.repeat(MAX_NESTING_DEPTH + 1) + ']'.repeat(MAX_NESTING_DEPTH + 1)) },
    });
    const res = await t.post('/validate-widget-ignore', noUid);
    expect({ status: res.status, json: res.json }).toEqual({ status: 400, json: errored('admission.k8s.io/v1', '', 400, 'BadRequest', deepMessage) });
    const { uid, body } = tooLarge();
    const plain = await t.post('/validate-widget-ignore', body, { headers: { 'Content-Type': 'text/plain' } });
    expect({ status: plain.status, json: plain.json }).toEqual({
      status: 413,
      json: errored('admission.k8s.io/v1', uid, 413, 'RequestEntityTooLarge', `request body of ${Buffer.byteLength(body)} bytes or more exceeds the limit of ${LIMIT} bytes`),
    });
  });

  it('counts them as rejected, by code, and serves on', async () => {
    const metrics = (await t.get('metrics', '/metrics')).text;
    expect(metrics).toMatch(/shaper_webhook_rejected_requests_total\{code="413"\} 4/);
    expect(metrics).toMatch(/shaper_webhook_rejected_requests_total\{code="400"\} 3/);
    const ok = await t.post('/validate-widget', admissionReview({ object: widget }));
    expect(ok.json.response.allowed).toBe(true);
  });
});
