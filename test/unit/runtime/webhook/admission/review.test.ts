/** decodeReview on every malformed shape: the complete refusal names the problem and keeps the apiVersion and uid the body carried. */
import { describe, expect, it } from 'vitest';
import { checkReview, decodeReview, erroredResponse, identifyReview, isWellFormedReview, MAX_NESTING_DEPTH, REQUEST_FIELDS, reviewOf } from '../../../../../runtime/webhook/admission/review.js';

const v1 = 'admission.k8s.io/v1';
const v1beta1 = 'admission.k8s.io/v1beta1';
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
const VERSIONS = 'expected one of admission.k8s.io/v1, admission.k8s.io/v1beta1';
const NOT_AN_OBJECT = 'request body must be a JSON object (an AdmissionReview)';
const TOO_DEEP = `request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`;
/** A refusal of a field of the request, with the uid kept. */
const field = (problem: string, apiVersion = v1) => ({ error: `AdmissionReview request${problem}`, apiVersion, uid: 'u-1' });

describe('decodeReview', () => {
  it.each([v1, v1beta1])('accepts a complete %s review, and a minimal one (userInfo defaulted, nulls where Go has pointers)', (apiVersion) => {
    expect(decodeReview(review(request(), apiVersion))).toEqual({ review: { apiVersion, kind: 'AdmissionReview', request: request() } });
    const minimal = request({ userInfo: undefined, object: null, dryRun: null, name: null });
    expect(decodeReview(review(minimal, apiVersion))).toEqual({ review: { apiVersion, kind: 'AdmissionReview', request: { ...minimal, userInfo: {} } } });
  });

  it('accepts every field at its type, and extra lists that are null', () => {
    const full = request({
      subResource: 'status',
      requestKind: { group: 'example.io', version: 'v1', kind: 'Widget' },
      requestResource: { group: 'example.io', version: 'v1', resource: 'widgets' },
      requestSubResource: 'status',
      name: 'w',
      namespace: 'ns',
      operation: 'UPDATE',
      userInfo: { username: 'alice', uid: '7', groups: [], extra: { a: null, b: ['x'] } },
      oldObject: {},
      dryRun: true,
      options: { kind: 'UpdateOptions' },
    });
    expect(decodeReview(review(full))).toEqual({ review: { apiVersion: v1, kind: 'AdmissionReview', request: full } });
  });

  const refusals: [string, string, Record<string, unknown>][] = [
    // Not an AdmissionReview at all: no API server sends these.
    ['empty', '', { error: 'request body is not valid JSON: Unexpected end of JSON input' }],
    ['not JSON', '{"apiVersion": ', { error: expect.stringMatching(/^request body is not valid JSON: /) }],
    ['not JSON, apiVersion and uid kept', `{"apiVersion":"${v1}","request":{"uid":"u-1",`, { error: expect.stringMatching(/^request body is not valid JSON: /), apiVersion: v1, uid: 'u-1' }],
    ['null', 'null', { error: NOT_AN_OBJECT }],
    ['an array', '[1,2]', { error: NOT_AN_OBJECT }],
    ['a string', '"x"', { error: NOT_AN_OBJECT }],
    ['a number', '7', { error: NOT_AN_OBJECT }],
    ['no apiVersion', JSON.stringify({ kind: 'AdmissionReview', request: request() }), { error: `unsupported apiVersion undefined; ${VERSIONS}`, uid: 'u-1' }],
    ['wrong apiVersion, uid kept', JSON.stringify({ apiVersion: 'v1', kind: 'AdmissionReview', request: request() }), { error: `unsupported apiVersion "v1"; ${VERSIONS}`, uid: 'u-1' }],
    ['apiVersion a number', JSON.stringify({ apiVersion: 1, kind: 'AdmissionReview' }), { error: `unsupported apiVersion number 1; ${VERSIONS}` }],
    ['apiVersion deeply nested', `{"apiVersion":${deep(900)}}`, { error: `unsupported apiVersion an array; ${VERSIONS}` }],
    ['apiVersion a huge string', JSON.stringify({ apiVersion: 'x'.repeat(100_000) }), { error: `unsupported apiVersion "${'x'.repeat(64)}…"; ${VERSIONS}` }],
    ['no kind', JSON.stringify({ apiVersion: v1, request: request() }), { error: 'unsupported kind undefined; expected AdmissionReview', apiVersion: v1, uid: 'u-1' }],
    ['wrong kind', JSON.stringify({ apiVersion: v1, kind: 'Pod', request: request() }), { error: 'unsupported kind "Pod"; expected AdmissionReview', apiVersion: v1, uid: 'u-1' }],
    ['kind an object', JSON.stringify({ apiVersion: v1beta1, kind: {} }), { error: 'unsupported kind an object; expected AdmissionReview', apiVersion: v1beta1 }],
    ['no request', JSON.stringify({ apiVersion: v1, kind: 'AdmissionReview' }), { error: 'AdmissionReview has no request', apiVersion: v1 }],
    ['request null', review(null), { error: 'AdmissionReview has no request', apiVersion: v1 }],
    ['request an array', review([]), { error: 'AdmissionReview has no request', apiVersion: v1 }],
    ['request a string', review('r'), { error: 'AdmissionReview has no request', apiVersion: v1 }],
    ['no uid', review(request({ uid: undefined })), { error: 'AdmissionReview request has no uid', apiVersion: v1 }],
    ['uid null', review(request({ uid: null })), { error: 'AdmissionReview request has no uid', apiVersion: v1 }],
    ['empty uid', review(request({ uid: '' })), { error: 'AdmissionReview request has no uid', apiVersion: v1 }],
    ['uid a number', review(request({ uid: 7 })), { error: 'AdmissionReview request.uid must be a string, got number 7', apiVersion: v1 }],
    ['uid an object', review(request({ uid: {} })), { error: 'AdmissionReview request.uid must be a string, got an object', apiVersion: v1 }],
    // A field of the wrong JSON type, as Go's decoder refuses it.
    ['kind a string', review(request({ kind: 'Widget' })), field('.kind must be an object, got "Widget"')],
    ['kind.group an object', review(request({ kind: { group: { toString: 1 }, version: 'v1', kind: 'W' } })), field('.kind must be an object whose group is a string, got an object')],
    ['kind.version a number', review(request({ kind: { group: '', version: 1, kind: 'W' } })), field('.kind must be an object whose version is a string, got an object')],
    ['resource a string', review(request({ resource: 'widgets' })), field('.resource must be an object, got "widgets"')],
    ['resource.resource an array', review(request({ resource: { group: '', version: 'v1', resource: [] } })), field('.resource must be an object whose resource is a string, got an object')],
    ['subResource a number', review(request({ subResource: 1 })), field('.subResource must be a string, got number 1')],
    ['requestKind an array', review(request({ requestKind: [] })), field('.requestKind must be an object, got an array')],
    ['requestResource a string', review(request({ requestResource: 'x' })), field('.requestResource must be an object, got "x"')],
    ['requestSubResource a boolean', review(request({ requestSubResource: true })), field('.requestSubResource must be a string, got boolean true')],
    ['name a number', review(request({ name: 5 })), field('.name must be a string, got number 5')],
    ['namespace an object', review(request({ namespace: {} })), field('.namespace must be a string, got an object')],
    ['operation an object', review(request({ operation: { toString: 1 } })), field('.operation must be a string, got an object')],
    ['userInfo a string', review(request({ userInfo: 'alice' })), field('.userInfo must be an object, got "alice"')],
    ['userInfo.username a number', review(request({ userInfo: { username: 1 } })), field('.userInfo must be an object whose username is a string, got an object')],
    ['userInfo.groups not strings', review(request({ userInfo: { groups: [1] } })), field('.userInfo must be an object whose groups is an array of strings, got an object')],
    ['userInfo.extra an array', review(request({ userInfo: { extra: [] } })), field('.userInfo must be an object whose extra is a map of string arrays, got an object')],
    ['userInfo.extra of strings', review(request({ userInfo: { extra: { a: 'x' } } })), field('.userInfo must be an object whose extra is a map of string arrays, got an object')],
    ['object an array', review(request({ object: [] })), field('.object must be an object, got an array')],
    ['oldObject a string', review(request({ oldObject: 'x' })), field('.oldObject must be an object, got "x"')],
    ['dryRun a string', review(request({ dryRun: 'yes' })), field('.dryRun must be true or false, got "yes"')],
    ['options a number', review(request({ options: 0 })), field('.options must be an object, got number 0')],
    ['v1beta1 kept', review(request({ dryRun: 1 }), v1beta1), field('.dryRun must be true or false, got number 1', v1beta1)],
    // Well-typed, but not a request the API server makes.
    ['no kind in the request', review(request({ kind: undefined })), field(' has no kind')],
    ['no resource', review(request({ resource: null })), field(' has no resource')],
    ['no operation', review(request({ operation: undefined })), field(' has an unknown operation undefined')],
    ['unknown operation', review(request({ operation: 'PATCH' })), field(' has an unknown operation "PATCH"')],
    ['operation a huge string', review(request({ operation: 'P'.repeat(1000) })), field(` has an unknown operation "${'P'.repeat(64)}…"`)],
    // A review the API server can send that this server will not process: exceedsLimit.
    ['nested deeper than the limit', review(request({ object: { a: JSON.parse(deep(MAX_NESTING_DEPTH)) } })), { error: TOO_DEEP, exceedsLimit: true, apiVersion: v1, uid: 'u-1' }],
    [
      'too deep, fields in any order, uid escaped',
      JSON.stringify({ request: { object: JSON.parse(deep(MAX_NESTING_DEPTH + 1)), uid: 'u-"2"' }, kind: 'AdmissionReview', apiVersion: v1 }),
      { error: TOO_DEEP, exceedsLimit: true, apiVersion: v1, uid: 'u-"2"' },
    ],
    [
      'too deep, uid cut off',
      JSON.stringify({ apiVersion: v1, request: { object: JSON.parse(deep(MAX_NESTING_DEPTH + 1)), uid: 'u-3' } }).slice(0, -6),
      { error: TOO_DEEP, exceedsLimit: true, apiVersion: v1 },
    ],
    ['too deep, no review', deep(MAX_NESTING_DEPTH + 1), { error: TOO_DEEP, exceedsLimit: true }],
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

describe('isWellFormedReview, the fast path of decodeReview', () => {
  /** One value of every JSON type, and the strings the review's own checks look for. */
  const VALUES = ['s', '', 'CREATE', v1, 'AdmissionReview', 1, true, false, {}, { a: 'b' }, [], ['s'], [1], null, undefined];
  const NESTED: Record<string, readonly string[]> = {
    kind: ['group', 'version', 'kind'],
    requestKind: ['group', 'version', 'kind'],
    resource: ['group', 'version', 'resource'],
    requestResource: ['group', 'version', 'resource'],
    userInfo: ['username', 'uid', 'groups', 'extra'],
  };
  const complete = request({ requestKind: request().kind, requestResource: request().resource, userInfo: { username: 'alice', uid: '7', groups: ['devs'], extra: { scopes: ['a'] } } });
  const envelope = (req: unknown, top: Record<string, unknown> = {}) => ({ apiVersion: v1, kind: 'AdmissionReview', request: req, ...top });

  it('accepts exactly what the table of checks accepts: every field of REQUEST_FIELDS and of the nested objects at every JSON type', () => {
    const reviews: unknown[] = [envelope(complete), envelope(request()), 'text', null, []];
    for (const value of VALUES) {
      reviews.push(envelope(value), envelope(complete, { apiVersion: value }), envelope(complete, { kind: value }), envelope({ ...complete, uid: value }));
      for (const key of Object.keys(REQUEST_FIELDS)) reviews.push(envelope({ ...complete, [key]: value }));
      for (const [key, members] of Object.entries(NESTED)) {
        for (const member of members) reviews.push(envelope({ ...complete, [key]: { ...(complete[key as keyof typeof complete] as object), [member]: value } }));
      }
      reviews.push(envelope({ ...complete, userInfo: { groups: ['devs', value] } }), envelope({ ...complete, userInfo: { extra: { a: value, b: [value] } } }));
    }
    const answers = reviews.map((parsed) => {
      // JSON has no undefined: compare what a body would decode to.
      const decoded: unknown = parsed === undefined ? undefined : JSON.parse(JSON.stringify(parsed));
      const byTable = 'review' in checkReview(structuredClone(decoded));
      expect({ review: decoded, accepted: isWellFormedReview(decoded) }).toEqual({ review: decoded, accepted: byTable });
      return byTable;
    });
    expect(answers.filter(Boolean).length).toBeGreaterThan(50);
    expect(answers.filter((accepted) => !accepted).length).toBeGreaterThan(100);
  });
});

describe('identifyReview, reviewOf, erroredResponse', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['a review', review(request()), { apiVersion: v1, uid: 'u-1' }],
    ['an unknown apiVersion', review(request(), 'v2'), { uid: 'u-1' }],
    ['a uid below the request only', JSON.stringify({ apiVersion: v1, object: { uid: 'x' }, request: { object: { uid: 'y' } } }), { apiVersion: v1 }],
    ['an empty uid', review(request({ uid: '' })), { apiVersion: v1 }],
    ['a truncated body', review(request()).slice(0, 60), { apiVersion: v1 }],
    ['text', 'hello', {}],
  ])('identifies %s', (_name, body, expected) => {
    expect(identifyReview(body)).toEqual(expected);
  });

  it('wraps a response in the request version, and errors like controller-runtime Errored() with the reason apimachinery pairs with the code', () => {
    expect(reviewOf(v1beta1, { uid: 'u', allowed: true })).toEqual({ apiVersion: v1beta1, kind: 'AdmissionReview', response: { uid: 'u', allowed: true } });
    expect(erroredResponse(413, 'too big', 'u')).toEqual({
      uid: 'u',
      allowed: false,
      status: { metadata: {}, status: 'Failure', code: 413, reason: 'RequestEntityTooLarge', message: 'too big' },
    });
    expect(erroredResponse(418, 'teapot')).toEqual({ uid: '', allowed: false, status: { metadata: {}, status: 'Failure', code: 418, reason: undefined, message: 'teapot' } });
  });
});
