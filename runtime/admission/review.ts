/**
 * The AdmissionReview wire format (admission.k8s.io/v1 and v1beta1, which
 * share one shape) and its decoding, with a message that says what was wrong.
 */
import { reasonFor } from '../errors.js';
import type { AdmissionOperation, AdmissionRequestInfo, KubernetesObject } from '../contract.js';

export const REVIEW_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
export type ReviewApiVersion = (typeof REVIEW_API_VERSIONS)[number];
const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] satisfies AdmissionOperation[];

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
}

export interface AdmissionReview {
  apiVersion: ReviewApiVersion;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

export type DecodeResult =
  | { review: AdmissionReview & { request: AdmissionRequest } }
  | { error: string; apiVersion?: ReviewApiVersion; uid?: string };

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
const fields = (shape: Record<string, Check>): Check => (value) => {
  if (!isObject(value)) return 'an object';
  for (const [key, check] of Object.entries(shape)) {
    const problem = value[key] == null ? undefined : check(value[key]);
    if (problem) return `an object whose ${key} is ${problem}`;
  }
  return undefined;
};
const groupVersionKind = fields({ group: string, version: string, kind: string });
const groupVersionResource = fields({ group: string, version: string, resource: string });

/** The typed fields of admission.k8s.io AdmissionRequest: a value of another JSON type is refused, as Go's decoder refuses it. */
const REQUEST_FIELDS: Record<string, Check> = {
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

/** Parses and checks a request body; never throws, and never puts more than a short description of a bad value into a message. */
export function decodeReview(body: string): DecodeResult {
  if (!withinDepth(body, MAX_NESTING_DEPTH)) return { error: `request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { error: `request body is not valid JSON: ${(error as Error).message.slice(0, 200)}` };
  }
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
  for (const [key, check] of Object.entries(REQUEST_FIELDS)) {
    const value = request[key];
    if (value == null) continue;
    const expected = check(value);
    if (expected) return refuse(`AdmissionReview request.${key} must be ${expected}, got ${describe(value)}`);
  }
  for (const key of ['kind', 'resource'] as const) {
    if (request[key] == null) return refuse(`AdmissionReview request has no ${key}`);
  }
  if (!OPERATIONS.includes(request.operation as string)) return refuse(`AdmissionReview request has an unknown operation ${describe(request.operation)}`);
  request.userInfo ??= {};
  return { review: parsed as unknown as AdmissionReview & { request: AdmissionRequest } };
}

/** A short, bounded description of a value for a message: strings quoted and cut, others by type. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value).slice(0, 32)}`;
}

/** Whether no object or array in the JSON text nests deeper than the limit; scans text, so deep input is never materialised. */
function withinDepth(text: string, limit: number): boolean {
  // Each level costs at least two characters, so a short text cannot be too deep.
  if (text.length <= limit * 2) return true;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return false;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return true;
}

/** The response envelope, in the request's own apiVersion. */
export function reviewOf(apiVersion: ReviewApiVersion, response: AdmissionResponse): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', response };
}

/** A denial before any handler ran (bad body, too large …), like controller-runtime's Errored(). */
export function erroredResponse(code: number, message: string, uid = ''): AdmissionResponse {
  return { uid, allowed: false, status: { metadata: {}, status: 'Failure', code, reason: reasonFor(code), message } };
}
