/**
 * What `serve` and `manifests` put on the wire, judged by Kubernetes' own Go
 * code (test/oracle): every response shape the server can produce, in v1 and
 * v1beta1, strictly decoded by the admission API types, verified by the API
 * server's VerifyAdmissionResponse, patches applied by the API server's JSON
 * Patch library, Invalid compared with apierrors.NewInvalid; and every object
 * the chart renders strictly decoded into its API type.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview, type RequestInput } from 'shaper-gen/testing';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { startTestServer, type HttpResult, type TestServer } from '../../support/admission-server.js';
import { helmTemplateText } from '../../support/helm.js';
import { judgeManifests, judgeResponses, newInvalid, type ResponseCase, type ResponseVerdict } from '../../../support/oracle.js';

const repo = path.resolve(import.meta.dirname, '../../..');
const API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
type ApiVersion = (typeof API_VERSIONS)[number];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhooks, config: { webhook: { maxRequestBytes: 64 * 1024 } } });
});
afterAll(() => t.stop());

const widget = (spec: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: 'example.io/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'team-a', ...(labels ? { labels } : {}) },
  spec,
});

interface Exchange {
  name: string;
  res: HttpResult;
  case: ResponseCase;
}

/** Sends a review to a fixture webhook and keeps what the oracle needs to judge the answer. */
async function exchange(name: string, urlPath: string, input: RequestInput, apiVersion: ApiVersion): Promise<Exchange> {
  const review = admissionReview(input, apiVersion);
  const res = await t.post(urlPath, review);
  const mutating = urlPath.startsWith('/mutate-');
  return { name, res, case: { body: res.text, uid: review.request!.uid, mutating, webhook: `${urlPath.slice(1)}.shaper-gen.io`, object: review.request!.object ?? undefined } };
}

/** A body the server refuses before any handler runs; the API server would have sent the uid it carries, if any. */
async function refused(name: string, body: string, options: { headers?: Record<string, string>; uid?: string; path?: string } = {}): Promise<Exchange> {
  const { path = '/validate-widget', ...rest } = options;
  const res = await t.post(path, body, rest);
  return { name, res, case: { body: res.text, uid: options.uid ?? '', mutating: false, webhook: `${path.slice(1)}.example.io` } };
}

function judge(exchanges: readonly Exchange[]): Map<string, ResponseVerdict> {
  const verdicts = judgeResponses(exchanges.map((e) => e.case));
  return new Map(exchanges.map((e, i) => [e.name, verdicts[i]!]));
}

describe('every answer a handler produces, judged by the API machinery', () => {
  for (const apiVersion of API_VERSIONS) {
    describe(apiVersion, () => {
      let verdicts: Map<string, ResponseVerdict>;
      let exchanges: Exchange[];
      beforeAll(async () => {
        exchanges = await Promise.all([
          exchange('allow', '/validate-widget', { object: widget({ size: 2 }) }, apiVersion),
          exchange('allow with warnings', '/validate-widget', { object: widget({ size: 10 }) }, apiVersion),
          exchange('allow with patch', '/mutate-widget', { object: widget({ tags: ['keep', 'drop'] }, { 'app/x~y': 'z' }) }, apiVersion),
          exchange('allow, nothing to patch', '/mutate-widget', { object: widget({ size: 3 }, { 'example.io/size': '3' }) }, apiVersion),
          exchange('Denied', '/validate-widget', { operation: 'DELETE', oldObject: widget({}, { 'example.io/protected': 'true' }) }, apiVersion),
          exchange('Denied with a custom code', '/validate-widget', { object: widget({ mode: 'teapot' }) }, apiVersion),
          exchange('Forbidden', '/validate-widget', { object: widget({ mode: 'forbidden' }), userInfo: { username: 'mallory' } }, apiVersion),
          exchange('Invalid, one cause', '/validate-widget', { object: widget({}) }, apiVersion),
          exchange('Invalid, several causes', '/validate-widget', { object: widget({ size: 11 }) }, apiVersion),
          exchange('Invalid on update', '/validate-widget', { oldObject: widget({ mode: 'a' }), object: widget({ mode: 'b' }) }, apiVersion),
          exchange('handler error', '/validate-widget', { object: widget({ mode: 'throw' }) }, apiVersion),
          exchange('defaulter error', '/mutate-widget', { object: widget({ mode: 'throw' }) }, apiVersion),
          exchange('timeout under Fail', '/validate-widget-slow', { object: widget({}) }, apiVersion),
          exchange('timeout under Ignore', '/validate-widget-ignore', { object: widget({}) }, apiVersion),
        ]);
        verdicts = judge(exchanges);
      });

      it('every answer decodes strictly, round-trips losslessly and passes VerifyAdmissionResponse', () => {
        const problems = Object.fromEntries(exchanges.map((e) => [e.name, verdicts.get(e.name)!.problems]));
        expect(problems).toEqual(Object.fromEntries(exchanges.map((e) => [e.name, []])));
        for (const e of exchanges) expect(verdicts.get(e.name)!.apiVersion).toBe(apiVersion);
      });

      it('allowed answers: warnings reach the client, the patch applies to exactly the defaulted object', () => {
        expect(verdicts.get('allow')).toEqual({ problems: [], apiVersion, allowed: true, warnings: ['checked by the widget validator'] });
        expect(verdicts.get('allow with warnings')).toEqual({ problems: [], apiVersion, allowed: true, warnings: ['checked by the widget validator', 'size 10 is the maximum'] });
        expect(verdicts.get('allow, nothing to patch')).toEqual({ problems: [], apiVersion, allowed: true });
        const patched = verdicts.get('allow with patch')!;
        expect(patched.patched).toEqual(widget({ tags: ['keep'], size: 3 }, { 'app/x~y': 'z', 'example.io/size': '3' }));
        expect(verdicts.get('timeout under Ignore')).toEqual({
          problems: [],
          apiVersion,
          allowed: true,
          warnings: ['webhook validate-widget-ignore.example.io (/validate-widget-ignore) did not answer within 800 ms; allowed because its failurePolicy is Ignore'],
        });
      });

      it('denials reach the client as the Status apimachinery builds', () => {
        const denied = (webhook: string, status: object) => ({
          metadata: {},
          status: 'Failure',
          ...status,
          message: `admission webhook "${webhook}.shaper-gen.io" denied the request: ${(status as { message: string }).message}`,
        });
        expect(verdicts.get('Denied')!.clientStatus).toEqual(denied('validate-widget', { code: 403, reason: 'Forbidden', message: 'widget is protected' }));
        expect(verdicts.get('Denied with a custom code')!.clientStatus).toEqual(denied('validate-widget', { code: 418, message: 'no tea' }));
        expect(verdicts.get('Forbidden')!.clientStatus).toEqual(denied('validate-widget', { code: 403, reason: 'Forbidden', message: 'user mallory may not create widgets' }));
        expect(verdicts.get('handler error')!.clientStatus).toEqual(
          denied('validate-widget', { code: 500, reason: 'InternalError', message: 'internal error in webhook validate-widget.example.io (/validate-widget): widget validator exploded' }),
        );
        expect(verdicts.get('defaulter error')!.clientStatus).toEqual(
          denied('mutate-widget', { code: 500, reason: 'InternalError', message: 'internal error in webhook mutate-widget.example.io (/mutate-widget): defaulter bug' }),
        );
        expect(verdicts.get('timeout under Fail')!.clientStatus).toEqual(
          denied('validate-widget-slow', { code: 504, reason: 'Timeout', message: 'webhook validate-widget-slow.example.io (/validate-widget-slow) did not answer within 800 ms' }),
        );
      });

      it('Invalid is exactly apierrors.NewInvalid for the same field errors', () => {
        const kind = { group: 'example.io', kind: 'Widget' };
        const expectations = {
          'Invalid, one cause': newInvalid(kind, 'w1', [{ type: 'FieldValueRequired', field: 'spec.size', detail: 'a widget needs a size' }]),
          'Invalid, several causes': newInvalid(kind, 'w1', [
            { type: 'FieldValueInvalid', field: 'spec.size', value: 11, detail: 'must be at most 10' },
            { type: 'FieldValueForbidden', field: 'spec.mode', detail: 'cannot be set with a large size' },
          ]),
          'Invalid on update': newInvalid(kind, 'w1', [{ type: 'FieldValueInvalid', field: 'spec.mode', value: 'b', detail: 'field is immutable' }]),
        };
        for (const [name, status] of Object.entries(expectations)) {
          const ours = JSON.parse(exchanges.find((e) => e.name === name)!.res.text).response.status;
          expect(ours).toEqual(status);
        }
        expect(expectations['Invalid, several causes'].message).toBe(
          'Widget.example.io "w1" is invalid: [spec.size: Invalid value: 11: must be at most 10, spec.mode: Forbidden: cannot be set with a large size]',
        );
      });
    });
  }
});

describe('answers to requests that never reach a handler, judged by the API machinery', () => {
  let exchanges: Exchange[];
  let verdicts: Map<string, ResponseVerdict>;
  beforeAll(async () => {
    const review = admissionReview({ object: widget({ size: 1 }) });
    const valid = JSON.stringify(review);
    const uid = review.request!.uid;
    exchanges = await Promise.all([
      refused('empty body', ''),
      refused('too large', JSON.stringify({ ...review, padding: 'x'.repeat(70 * 1024) }), { uid }),
      refused('too large, Ignore', JSON.stringify({ ...review, padding: 'x'.repeat(70 * 1024) }), { uid, path: '/validate-widget-ignore' }),
      refused('too deep', JSON.stringify({ ...review, request: { ...review.request, object: { ...review.request!.object, deep: JSON.parse('['.repeat(1000) + ']'.repeat(1000)) } } }), { uid }),
      refused('wrong Content-Type', valid, { headers: { 'Content-Type': 'text/plain' }, uid }),
      refused('encoded body', valid, { headers: { 'Content-Encoding': 'gzip' }, uid }),
      refused('unknown operation', JSON.stringify({ ...review, request: { ...review.request, operation: 'PATCH' } }), { uid }),
      refused('undecodable JSON', '{"apiVersion": '),
      refused('not an object', '[1,2]'),
      refused('wrong apiVersion', JSON.stringify({ apiVersion: 'v1', kind: 'AdmissionReview' })),
      refused('wrong kind', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'Pod' })),
      refused('no request', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })),
      refused('no request, v1beta1', JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview' })),
    ]);
    verdicts = judge(exchanges);
  });

  it('every refusal is an AdmissionReview the API machinery decodes strictly, denied with its code (HTTP 200 under the failurePolicy when the API server could have sent it)', () => {
    const seen = Object.fromEntries(
      exchanges.map((e) => {
        const verdict = verdicts.get(e.name)!;
        return [e.name, { http: e.res.status, problems: verdict.problems, allowed: verdict.allowed, code: verdict.clientStatus?.code, apiVersion: verdict.apiVersion }];
      }),
    );
    const v1 = 'admission.k8s.io/v1';
    expect(seen).toEqual({
      'empty body': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'too large': { http: 200, problems: [], allowed: false, code: 413, apiVersion: v1 },
      'too large, Ignore': { http: 200, problems: [], allowed: true, code: undefined, apiVersion: v1 },
      'too deep': { http: 200, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'wrong Content-Type': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'encoded body': { http: 415, problems: [], allowed: false, code: 415, apiVersion: v1 },
      'unknown operation': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'undecodable JSON': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'not an object': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'wrong apiVersion': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'wrong kind': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'no request': { http: 400, problems: [], allowed: false, code: 400, apiVersion: v1 },
      'no request, v1beta1': { http: 400, problems: [], allowed: false, code: 400, apiVersion: 'admission.k8s.io/v1beta1' },
    });
  });
});

describe('the oracle catches what a test with our own types missed', () => {
  let invalidBody: string;
  let uid: string;
  beforeAll(async () => {
    const e = await exchange('Invalid', '/validate-widget', { object: widget({ size: 11 }) }, 'admission.k8s.io/v1');
    invalidBody = e.res.text;
    uid = e.case.uid;
  });
  const verdictFor = (body: unknown) => judgeResponses([{ body: JSON.stringify(body), uid, mutating: false, webhook: 'validate-widget.example.io' }])[0]!;

  it('a cause whose type travels under "type" instead of "reason"', () => {
    const review = JSON.parse(invalidBody);
    for (const cause of review.response.status.details.causes) {
      cause.type = cause.reason;
      delete cause.reason;
    }
    expect(verdictFor(review).problems).toEqual([
      'strict: unknown field "response.status.details.causes[0].type"',
      'strict: unknown field "response.status.details.causes[1].type"',
      'round trip: response.status.details.causes[0].type: "FieldValueInvalid" was dropped (a zero value the Go type omits, or not what the field means)',
      'round trip: response.status.details.causes[1].type: "FieldValueForbidden" was dropped (a zero value the Go type omits, or not what the field means)',
    ]);
  });

  it('an unknown key added to any object of the answer', () => {
    const review = JSON.parse(invalidBody);
    const objectPaths = objectsIn(review);
    expect(objectPaths.length).toBeGreaterThanOrEqual(6);
    for (const at of objectPaths) {
      const mutated = structuredClone(review);
      at.reduce((node: any, key) => node[key], mutated).unexpectedKey = 1;
      const where = [...at, 'unexpectedKey']
        .map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`))
        .join('')
        .replace(/^\./, '')
        .replace(/\.\[/g, '[');
      expect(verdictFor(mutated).problems, where).toContain(`strict: unknown field "${where}"`);
    }
  });
});

/** Paths of every JSON object inside a value, the root included. */
function objectsIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectsIn(item, [...at, i]));
  if (typeof value !== 'object' || value === null) return [];
  return [at, ...Object.entries(value).flatMap(([key, child]) => objectsIn(child, [...at, key]))];
}

describe('the rendered chart, decoded strictly into the API types', () => {
  const chart = path.join(repo, 'charts/shaper-webhooks');
  const variants: Record<string, Record<string, unknown>> = {
    defaults: {},
    'own CA bundle and URL': {
      'certManager.enabled': false,
      'webhook.caBundle': Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64'),
      'webhook.url': 'https://webhooks.example.com:8443',
    },
    'no namespace guard, NetworkPolicy and ServiceMonitor': { 'webhook.excludeSystemNamespaces': false, 'networkPolicy.enabled': true, 'serviceMonitor.enabled': true },
  };
  for (const [name, set] of Object.entries(variants)) {
    it(`${name}: every Kubernetes object decodes with no unknown field and no value lost`, async () => {
      const verdicts = judgeManifests(await helmTemplateText(chart, { set }));
      const judged = verdicts.filter((v) => !v.skipped);
      expect(judged.map((v) => v.kind)).toEqual(
        expect.arrayContaining(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'Deployment', 'Service', 'ConfigMap', 'CustomResourceDefinition']),
      );
      expect(judged.filter((v) => v.problems.length > 0)).toEqual([]);
      for (const v of verdicts.filter((v) => v.skipped)) expect(v.apiVersion).toMatch(/^(cert-manager\.io|monitoring\.coreos\.com)\//);
    });
  }

  it('catches a misspelled schema keyword in a generated CRD', async () => {
    const rendered = await helmTemplateText(chart);
    const misspelled = rendered.replace('x-kubernetes-int-or-string: true', 'x-kubernetes-int-or-strings: true');
    expect(misspelled).not.toBe(rendered);
    const problems = judgeManifests(misspelled).flatMap((v) => v.problems);
    expect(problems[0]).toBe('strict: unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.requests.properties.cpu.x-kubernetes-int-or-strings"');
  });

  it('catches a misspelled field in a webhook configuration', async () => {
    const rendered = await helmTemplateText(chart);
    const misspelled = rendered.replace('    sideEffects: "None"', '    sideEffect: "None"');
    expect(misspelled).not.toBe(rendered);
    const problems = judgeManifests(misspelled).flatMap((v) => v.problems);
    expect(problems[0]).toMatch(/^strict: unknown field "webhooks\[0\]\.sideEffect"/);
  });
});

describe('field error messages, against field.Error.ErrorBody', () => {
  const values: unknown[] = [
    'plain',
    'quote " and backslash \\',
    'tab\tnewline\nbell\u0007',
    'control \u0001\u001f\u007f',
    'unicode é 日本 🎉',
    'soft\u00adhyphen and nbsp\u00a0',
    '<html>&',
    0,
    -0,
    7,
    -12,
    5000,
    2 ** 53,
    1e21,
    0.1,
    1.5,
    -2.25,
    123456.5,
    1234567.5,
    0.0001,
    0.00001,
    1e-7,
    true,
    false,
    null,
    [1, 'a', { b: 2 }],
    { z: 1, a: ['<', '>'], m: { y: null, x: 1 } },
    [],
  ];
  const types = [
    'FieldValueInvalid',
    'FieldValueNotSupported',
    'FieldValueNotFound',
    'FieldValueDuplicate',
    'FieldValueTooMany',
    'FieldValueRequired',
    'FieldValueForbidden',
    'FieldValueTooLong',
    'FieldValueTypeInvalid',
    'InternalError',
  ] as const;

  it('every value kind and every cause type prints as apimachinery prints it', async () => {
    const { Invalid } = await import('shaper-gen');
    const errors = types.flatMap((type) => values.map((value, i) => ({ type, field: `spec.v${i}`, value, detail: i % 2 === 0 ? 'detail' : '' })));
    const expected = newInvalid({ group: '', kind: 'ConfigMap' }, 'cm', errors);
    const ours = Invalid(errors.map((e) => ({ type: e.type, field: e.field, value: e.value, message: e.detail })));
    const { causeMessage } = await import('../../../runtime/webhook/errors.js');
    expect(ours.causes.map((cause) => ({ reason: cause.type, message: causeMessage(cause), field: cause.field }))).toEqual(expected.details!.causes);
    expect(`ConfigMap "cm" is invalid: ${ours.message}`).toBe(expected.message);
  });

  it('the aggregate drops repeated messages and brackets only several', () => {
    const twice = { type: 'FieldValueRequired', field: 'spec.a', detail: '' };
    expect(newInvalid({ group: '', kind: 'ConfigMap' }, 'cm', [twice, twice]).message).toBe('ConfigMap "cm" is invalid: spec.a: Required value');
  });
});
