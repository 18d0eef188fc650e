/** decodeReview on every malformed shape: the refusal names the problem and keeps the apiVersion and uid the body carried. */
import { describe, expect, it } from 'vitest';
import { decodeReview, MAX_NESTING_DEPTH } from '../../../../runtime/admission/review.js';

const v1 = 'admission.k8s.io/v1';
const request = (overrides: Record<string, unknown> = {}) => ({
  uid: 'u-1',
  kind: { group: 'example.io', version: 'v1', kind: 'Widget' },
  resource: { group: 'example.io', version: 'v1', resource: 'widgets' },
  operation: 'CREATE',
  userInfo: { username: 'alice', groups: ['devs'], extra: { scopes: ['a'] } },
  object: { metadata: { name: 'w' } },
  ...overrides,
});
const review = (req: unknown, apiVersion = v1) => JSON.stringify({ apiVersion, kind: 'AdmissionReview', request: req });
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('decodeReview', () => {
  it('accepts a complete review and a minimal one (userInfo defaulted, nulls allowed where Go has pointers)', () => {
    expect(decodeReview(review(request()))).toEqual({ review: { apiVersion: v1, kind: 'AdmissionReview', request: request() } });
    const minimal = request({ userInfo: undefined, object: null, dryRun: null, name: null });
    expect(decodeReview(review(minimal))).toEqual({ review: { apiVersion: v1, kind: 'AdmissionReview', request: { ...minimal, userInfo: {} } } });
  });

  const refusals: [string, string, { error: string; apiVersion?: string; uid?: string }][] = [
    ['not JSON', '{"apiVersion": ', { error: expect.stringMatching(/^request body is not valid JSON: /) as never }],
    ['an array', '[1,2]', { error: 'request body must be a JSON object (an AdmissionReview)' }],
    ['a string', '"x"', { error: 'request body must be a JSON object (an AdmissionReview)' }],
    ['wrong apiVersion, uid kept', JSON.stringify({ apiVersion: 'v1', kind: 'AdmissionReview', request: request() }), { error: 'unsupported apiVersion "v1"; expected one of admission.k8s.io/v1, admission.k8s.io/v1beta1', uid: 'u-1' }],
    ['apiVersion deeply nested', `{"apiVersion":${deep(900)}}`, { error: 'unsupported apiVersion an array; expected one of admission.k8s.io/v1, admission.k8s.io/v1beta1' }],
    ['apiVersion a huge string', JSON.stringify({ apiVersion: 'x'.repeat(100_000) }), { error: `unsupported apiVersion "${'x'.repeat(64)}…"; expected one of admission.k8s.io/v1, admission.k8s.io/v1beta1` }],
    ['wrong kind', JSON.stringify({ apiVersion: v1, kind: 'Pod', request: request() }), { error: 'unsupported kind "Pod"; expected AdmissionReview', apiVersion: v1, uid: 'u-1' }],
    ['no request', JSON.stringify({ apiVersion: v1, kind: 'AdmissionReview' }), { error: 'AdmissionReview has no request', apiVersion: v1 }],
    ['request an array', review([]), { error: 'AdmissionReview has no request', apiVersion: v1 }],
    ['no uid', review(request({ uid: undefined })), { error: 'AdmissionReview request has no uid', apiVersion: v1 }],
    ['empty uid', review(request({ uid: '' })), { error: 'AdmissionReview request has no uid', apiVersion: v1 }],
    ['uid a number', review(request({ uid: 7 })), { error: 'AdmissionReview request.uid must be a string, got number 7', apiVersion: v1 }],
    ['unknown operation, uid kept', review(request({ operation: 'PATCH' })), { error: 'AdmissionReview request has an unknown operation "PATCH"', apiVersion: v1, uid: 'u-1' }],
    ['operation an object', review(request({ operation: { toString: 1 } })), { error: 'AdmissionReview request.operation must be a string, got an object', apiVersion: v1, uid: 'u-1' }],
    ['kind.group an object', review(request({ kind: { group: { toString: 1 }, version: 'v1', kind: 'W' } })), { error: 'AdmissionReview request.kind must be an object whose group is a string, got an object', apiVersion: v1, uid: 'u-1' }],
    ['no kind', review(request({ kind: undefined })), { error: 'AdmissionReview request has no kind', apiVersion: v1, uid: 'u-1' }],
    ['resource a string', review(request({ resource: 'widgets' })), { error: 'AdmissionReview request.resource must be an object, got "widgets"', apiVersion: v1, uid: 'u-1' }],
    ['name a number', review(request({ name: 5 })), { error: 'AdmissionReview request.name must be a string, got number 5', apiVersion: v1, uid: 'u-1' }],
    ['userInfo.groups not strings', review(request({ userInfo: { groups: [1] } })), { error: 'AdmissionReview request.userInfo must be an object whose groups is an array of strings, got an object', apiVersion: v1, uid: 'u-1' }],
    ['object an array', review(request({ object: [] })), { error: 'AdmissionReview request.object must be an object, got an array', apiVersion: v1, uid: 'u-1' }],
    ['dryRun a string', review(request({ dryRun: 'yes' })), { error: 'AdmissionReview request.dryRun must be true or false, got "yes"', apiVersion: v1, uid: 'u-1' }],
    ['v1beta1 kept', review(request({ operation: 'PATCH' }), 'admission.k8s.io/v1beta1'), { error: 'AdmissionReview request has an unknown operation "PATCH"', apiVersion: 'admission.k8s.io/v1beta1', uid: 'u-1' }],
    ['nested deeper than the limit', review(request({ object: { a: JSON.parse(deep(MAX_NESTING_DEPTH)) } })), { error: `request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`, exceedsLimit: true, apiVersion: v1, uid: 'u-1' }],
    ['too deep, fields in any order, uid escaped', JSON.stringify({ request: { object: JSON.parse(deep(MAX_NESTING_DEPTH + 1)), uid: 'u-"2"' }, kind: 'AdmissionReview', apiVersion: v1 }), { error: `request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`, exceedsLimit: true, apiVersion: v1, uid: 'u-"2"' }],
    ['too deep, uid cut off', JSON.stringify({ apiVersion: v1, request: { object: JSON.parse(deep(MAX_NESTING_DEPTH + 1)), uid: 'u-3' } }).slice(0, -6), { error: `request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`, exceedsLimit: true, apiVersion: v1 }],
  ];
  it.each(refusals)('refuses %s', (_name, body, expected) => {
    expect(decodeReview(body)).toEqual(expected);
  });

  it('counts depth outside strings only: brackets inside strings and escaped quotes do not nest', () => {
    const brackets = '['.repeat(5000) + '\\"' + '{'.repeat(5000);
    const body = review(request({ object: { metadata: { name: 'w', annotations: { text: brackets } } } }));
    expect('review' in decodeReview(body)).toBe(true);
    const justUnder = review(request({ object: { a: JSON.parse(deep(MAX_NESTING_DEPTH - 3)) } }));
    expect('review' in decodeReview(justUnder)).toBe(true);
  });
});
