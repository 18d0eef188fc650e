/**
 * The AdmissionReview wire format (admission.k8s.io/v1 and v1beta1, which
 * share one shape) and its decoding, with a message that says what was wrong.
 */
import { reasonFor } from '../errors.js';
import { closingQuote, nestsDeeperThan } from './json-text.js';
import { ADMISSION_OPERATIONS, type AdmissionOperation, type AdmissionRequestInfo, type KubernetesObject } from '../contract.js';

export const REVIEW_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
export type ReviewApiVersion = (typeof REVIEW_API_VERSIONS)[number];

/** The request as it arrives: what handlers see as `ctx.request`, plus the objects, with the wire's optional fields. */
export interface AdmissionRequest extends Omit<AdmissionRequestInfo, 'dryRun' | 'options'> {
  object?: KubernetesObject | null;
  oldObject?: KubernetesObject | null;
  dryRun?: boolean;
  options?: KubernetesObject | null;
}

/** metav1.StatusCause: its type travels under the JSON key `reason`; empty fields are left out, as Go's omitempty does. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** metav1.Status as a webhook returns it. */
export interface Status {
  metadata: Record<string, never>;
  status: 'Failure';
  code: number;
  reason?: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Status;
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** The status code a response stands for: its status's, else 200 when allowed and 403 when denied. */
export function responseCode(response: AdmissionResponse): number {
  return response.status?.code ?? (response.allowed ? 200 : 403);
}

export interface AdmissionReview {
  apiVersion: ReviewApiVersion;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/**
 * A review, or why the body is none. `exceedsLimit`: a review the API server
 * can send that this server will not process (nested too deep), which is
 * answered under the webhook's failurePolicy; every other refusal is of a
 * body no API server sends (docs/adr/0001-http-200-for-refusable-reviews.md).
 */
export type DecodeResult = { review: AdmissionReview & { request: AdmissionRequest } } | ({ error: string; exceedsLimit?: true } & ReviewIdentity);

/**
 * The deepest nesting accepted, in objects and arrays. The API server's own
 * decoder stops at 10,000; this server's clone and diff run on the JS stack,
 * which holds about 1,600 levels, so it refuses earlier with a clear answer
 * rather than fail inside the handler. No Kubernetes object comes close.
 */
export const MAX_NESTING_DEPTH = 1000;

type Check = (value: unknown) => string | undefined;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const string: Check = (value) => (typeof value === 'string' ? undefined : 'a string');
const boolean: Check = (value) => (typeof value === 'boolean' ? undefined : 'true or false');
const object: Check = (value) => (isObject(value) ? undefined : 'an object');
const strings: Check = (value) => (Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : 'an array of strings');
const stringLists: Check = (value) => (isObject(value) && Object.values(value).every((list) => list === null || strings(list) === undefined) ? undefined : 'a map of string arrays');
const fields = (shape: Record<string, Check>): Check => {
  const entries = Object.entries(shape);
  return (value) => {
    if (!isObject(value)) return 'an object';
    for (const [key, check] of entries) {
      const problem = value[key] == null ? undefined : check(value[key]);
      if (problem) return `an object whose ${key} is ${problem}`;
    }
    return undefined;
  };
};
const groupVersionKind = fields({ group: string, version: string, kind: string });
const groupVersionResource = fields({ group: string, version: string, resource: string });

/** The typed fields of admission.k8s.io AdmissionRequest: a value of another JSON type is refused, as Go's decoder refuses it. */
export const REQUEST_FIELDS: Record<string, Check> = {
  kind: groupVersionKind,
  resource: groupVersionResource,
  subResource: string,
  requestKind: groupVersionKind,
  requestResource: groupVersionResource,
  requestSubResource: string,
  name: string,
  namespace: string,
  operation: string,
  userInfo: fields({ username: string, uid: string, groups: strings, extra: stringLists }),
  object,
  oldObject: object,
  dryRun: boolean,
  options: object,
};
const REQUEST_FIELD_CHECKS = Object.entries(REQUEST_FIELDS);

/** What a refusal needs to be an answer the API server accepts: the review version and the uid, as far as the body tells them. */
export interface ReviewIdentity {
  apiVersion?: ReviewApiVersion;
  uid?: string;
}

/**
 * The review version and uid of a body that will be refused, read by
 * scanning its text (see scanReview): also from a body that is too deep,
 * truncated or otherwise not JSON, without materialising any of it.
 */
export function identifyReview(body: string): ReviewIdentity {
  const { apiVersion, uid } = scanReview(body);
  return { apiVersion: REVIEW_API_VERSIONS.find((v) => v === apiVersion), uid };
}

/**
 * Parses and checks a request body; never throws, and never puts more than a short description of a bad value into a
 * message. `depthChecked`: a pass over the body (the heap estimate's) already found it nests no deeper than the limit.
 */
export function decodeReview(body: string, depthChecked = false): DecodeResult {
  // Each level costs at least two characters, so only a long body can be too deep.
  if (!depthChecked && body.length > MAX_NESTING_DEPTH * 2 && nestsDeeperThan(body, MAX_NESTING_DEPTH)) {
    return { error: `request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`, exceedsLimit: true, ...identifyReview(body) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { error: `request body is not valid JSON: ${(error as Error).message.slice(0, 200)}`, ...identifyReview(body) };
  }
  if (isWellFormedReview(parsed)) {
    // Go decodes an absent userInfo as its zero value.
    (parsed.request as { userInfo?: object }).userInfo ??= {};
    return { review: parsed };
  }
  return checkReview(parsed);
}

/**
 * The review checks of checkReview, written out as plain property reads: true exactly when it accepts `parsed`
 * (test/unit/runtime/webhook/admission/review.test.ts holds the two to the same answer for every field of
 * REQUEST_FIELDS at every JSON type). The table's generic checks, a keyed read and a call per field, cost a busy
 * server about 14,000 instructions per review (`npm run bench -- admission-instructions`); this costs a tenth.
 * The table stays the one that says what is wrong.
 */
export function isWellFormedReview(parsed: unknown): parsed is AdmissionReview & { request: AdmissionRequest } {
  if (!isObject(parsed) || !REVIEW_API_VERSIONS.includes(parsed.apiVersion as ReviewApiVersion) || parsed.kind !== 'AdmissionReview') return false;
  const request = parsed.request;
  if (!isObject(request) || typeof request.uid !== 'string' || request.uid === '') return false;
  return (
    isGroupVersionKind(request.kind) &&
    isGroupVersionResource(request.resource) &&
    optional(request.subResource, isString) &&
    optional(request.requestKind, isGroupVersionKind) &&
    optional(request.requestResource, isGroupVersionResource) &&
    optional(request.requestSubResource, isString) &&
    optional(request.name, isString) &&
    optional(request.namespace, isString) &&
    ADMISSION_OPERATIONS.includes(request.operation as AdmissionOperation) &&
    optional(request.userInfo, isUserInfo) &&
    optional(request.object, isObject) &&
    optional(request.oldObject, isObject) &&
    optional(request.dryRun, isBoolean) &&
    optional(request.options, isObject)
  );
}

const isString = (value: unknown): boolean => typeof value === 'string';
const isBoolean = (value: unknown): boolean => typeof value === 'boolean';
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value == null || check(value);
const isGroupVersionKind = (value: unknown): boolean => isObject(value) && optional(value.group, isString) && optional(value.version, isString) && optional(value.kind, isString);
const isGroupVersionResource = (value: unknown): boolean => isObject(value) && optional(value.group, isString) && optional(value.version, isString) && optional(value.resource, isString);
const isStringArray = (value: unknown): boolean => Array.isArray(value) && value.every(isString);
const isUserInfo = (value: unknown): boolean =>
  isObject(value) &&
  optional(value.username, isString) &&
  optional(value.uid, isString) &&
  optional(value.groups, isStringArray) &&
  optional(value.extra, (extra) => isObject(extra) && Object.values(extra).every((list) => list === null || isStringArray(list)));

/** decodeReview's checks by the table: the review, or what is wrong with it. */
export function checkReview(parsed: unknown): DecodeResult {
  if (!isObject(parsed)) return { error: 'request body must be a JSON object (an AdmissionReview)' };
  const { apiVersion, kind, request } = parsed;
  const version = REVIEW_API_VERSIONS.find((v) => v === apiVersion);
  const uid = isObject(request) && typeof request.uid === 'string' && request.uid !== '' ? request.uid : undefined;
  const refuse = (error: string): DecodeResult => ({ error, apiVersion: version, uid });
  if (!version) return refuse(`unsupported apiVersion ${describe(apiVersion)}; expected one of ${REVIEW_API_VERSIONS.join(', ')}`);
  if (kind !== 'AdmissionReview') return refuse(`unsupported kind ${describe(kind)}; expected AdmissionReview`);
  if (!isObject(request)) return refuse('AdmissionReview has no request');
  if (!uid) {
    const missing = request.uid == null || request.uid === '';
    return refuse(missing ? 'AdmissionReview request has no uid' : `AdmissionReview request.uid must be a string, got ${describe(request.uid)}`);
  }
  for (const [key, check] of REQUEST_FIELD_CHECKS) {
    const value = request[key];
    if (value == null) continue;
    const expected = check(value);
    if (expected) return refuse(`AdmissionReview request.${key} must be ${expected}, got ${describe(value)}`);
  }
  for (const key of ['kind', 'resource'] as const) {
    if (request[key] == null) return refuse(`AdmissionReview request has no ${key}`);
  }
  if (!ADMISSION_OPERATIONS.some((operation) => operation === request.operation)) return refuse(`AdmissionReview request has an unknown operation ${describe(request.operation)}`);
  request.userInfo ??= {};
  return { review: parsed as unknown as AdmissionReview & { request: AdmissionRequest } };
}

/** A short, bounded description of a value for a message: strings quoted and cut, others by type. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const scalar = value as number | boolean; // what is left of a JSON value
  return `${typeof value} ${String(scalar).slice(0, 32)}`;
}

export interface Scan {
  apiVersion?: string;
  uid?: string;
}

/**
 * One pass over JSON text, tolerant of anything: the string values of the
 * top-level `apiVersion` and of `request.uid`, wherever they stand. Nothing is
 * materialised, so a hostile body costs time linear in its size and no memory.
 */
export function scanReview(text: string): Scan {
  const result: Scan = {};
  const inObject: boolean[] = [];
  let depth = 0;
  let expectKey = false;
  let topKey: string | undefined;
  let requestKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(text, i);
      if (end >= text.length) break; // a string cut off by the end of the body is no value
      if (depth <= 2) {
        const raw = text.slice(i + 1, end);
        if (expectKey) {
          if (depth === 1) topKey = raw;
          else requestKey = raw;
          expectKey = false;
        } else if (depth === 1 && inObject[1] && topKey === 'apiVersion') result.apiVersion ??= unescapeJson(raw);
        else if (depth === 2 && inObject[1] && inObject[2] && topKey === 'request' && requestKey === 'uid') result.uid ??= unescapeJson(raw);
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth <= 2) {
        inObject[depth] = c === 0x7b;
        expectKey = c === 0x7b;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth >= 1 && depth <= 2 && inObject[depth]) expectKey = true;
  }
  if (result.uid === '') delete result.uid;
  return result;
}

function unescapeJson(raw: string): string | undefined {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/** The response envelope, in the request's own apiVersion. */
export function reviewOf(apiVersion: ReviewApiVersion, response: AdmissionResponse): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', response };
}

/** A denial before any handler ran (bad body, too large …), like controller-runtime's Errored(). */
export function erroredResponse(code: number, message: string, uid = ''): AdmissionResponse {
  return { uid, allowed: false, status: { metadata: {}, status: 'Failure', code, reason: reasonFor(code), message } };
}
