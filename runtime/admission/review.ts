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

export type DecodeResult = { review: AdmissionReview & { request: AdmissionRequest } } | { error: string; apiVersion?: ReviewApiVersion };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses and checks a request body; never throws. */
export function decodeReview(body: string): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { error: `request body is not valid JSON: ${(error as Error).message}` };
  }
  if (!isObject(parsed)) return { error: 'request body must be a JSON object (an AdmissionReview)' };
  const { apiVersion, kind, request } = parsed;
  if (!REVIEW_API_VERSIONS.includes(apiVersion as ReviewApiVersion)) {
    return { error: `unsupported apiVersion ${JSON.stringify(apiVersion)}; expected one of ${REVIEW_API_VERSIONS.join(', ')}` };
  }
  const version = apiVersion as ReviewApiVersion;
  if (kind !== 'AdmissionReview') return { error: `unsupported kind ${JSON.stringify(kind)}; expected AdmissionReview`, apiVersion: version };
  if (!isObject(request)) return { error: 'AdmissionReview has no request', apiVersion: version };
  if (typeof request.uid !== 'string' || request.uid === '') return { error: 'AdmissionReview request has no uid', apiVersion: version };
  if (!OPERATIONS.includes(request.operation as string)) {
    return { error: `AdmissionReview request has an unknown operation ${JSON.stringify(request.operation)}`, apiVersion: version };
  }
  for (const key of ['kind', 'resource'] as const) {
    if (!isObject(request[key])) return { error: `AdmissionReview request has no ${key}`, apiVersion: version };
  }
  for (const key of ['object', 'oldObject'] as const) {
    if (request[key] != null && !isObject(request[key])) return { error: `AdmissionReview request.${key} must be an object`, apiVersion: version };
  }
  request.userInfo ??= {};
  return { review: parsed as unknown as AdmissionReview & { request: AdmissionRequest } };
}

/** The response envelope, in the request's own apiVersion. */
export function reviewOf(apiVersion: ReviewApiVersion, response: AdmissionResponse): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', response };
}

/** A denial before any handler ran (bad body, too large …), like controller-runtime's Errored(). */
export function erroredResponse(code: number, message: string, uid = ''): AdmissionResponse {
  return { uid, allowed: false, status: { metadata: {}, status: 'Failure', code, reason: reasonFor(code), message } };
}
