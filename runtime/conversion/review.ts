/**
 * ConversionReview (apiextensions.k8s.io/v1 and v1beta1, which share one
 * shape) from text, and the answers. A review that cannot be read is still
 * answered with a ConversionReview whose result is Failure, naming the uid
 * when it can be found, so that the API server reports the reason.
 */
import { nestsDeeperThan } from '../webhook/admission/json-text.js';
import { describe, MAX_NESTING_DEPTH, scanReview } from '../webhook/admission/review.js';
import type { KubernetesObject } from '../webhook/contract.js';

export const CONVERSION_REVIEW_API_VERSIONS = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'] as const;
export type ConversionReviewApiVersion = (typeof CONVERSION_REVIEW_API_VERSIONS)[number];

export interface ConversionRequest {
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: readonly unknown[];
}

export interface ConversionResult {
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
}

export interface ConversionReview {
  readonly apiVersion: ConversionReviewApiVersion;
  readonly kind: 'ConversionReview';
  readonly request?: ConversionRequest;
  readonly response?: { readonly uid: string; readonly convertedObjects: readonly KubernetesObject[]; readonly result: ConversionResult };
}

export interface ReviewIdentity {
  readonly apiVersion: ConversionReviewApiVersion;
  readonly uid: string;
}

export type DecodedConversionReview = { ok: true; apiVersion: ConversionReviewApiVersion; request: ConversionRequest } | ({ ok: false; error: string } & ReviewIdentity);

/** The review's apiVersion and uid from its text, for answering one that cannot be decoded (v1 and "" when not found). */
export function identifyConversionReview(text: string): ReviewIdentity {
  const { apiVersion, uid } = scanReview(text);
  return { apiVersion: CONVERSION_REVIEW_API_VERSIONS.find((v) => v === apiVersion) ?? 'apiextensions.k8s.io/v1', uid: uid ?? '' };
}

/** Parses and checks a ConversionReview; never throws. */
export function decodeConversionReview(body: string): DecodedConversionReview {
  const refuse = (error: string, identity: ReviewIdentity = identifyConversionReview(body)): DecodedConversionReview => ({ ok: false, error, ...identity });
  if (body.length > MAX_NESTING_DEPTH * 2 && nestsDeeperThan(body, MAX_NESTING_DEPTH)) return refuse(`request body nests objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return refuse(`request body is not valid JSON: ${(error as Error).message.slice(0, 200)}`);
  }
  if (!isObject(parsed)) return refuse('request body must be a JSON object (a ConversionReview)');
  const { apiVersion, kind, request } = parsed;
  const version = CONVERSION_REVIEW_API_VERSIONS.find((v) => v === apiVersion);
  const uid = isObject(request) && typeof request.uid === 'string' ? request.uid : '';
  const identity: ReviewIdentity = { apiVersion: version ?? 'apiextensions.k8s.io/v1', uid };
  if (!version) return refuse(`unsupported apiVersion ${describe(apiVersion)}; expected one of ${CONVERSION_REVIEW_API_VERSIONS.join(', ')}`, identity);
  if (kind !== 'ConversionReview') return refuse(`unsupported kind ${describe(kind)}; expected ConversionReview`, identity);
  if (!isObject(request)) return refuse('ConversionReview has no request', identity);
  if (uid === '') return refuse(request.uid == null || request.uid === '' ? 'ConversionReview request has no uid' : `request.uid must be a string, got ${describe(request.uid)}`, identity);
  const { desiredAPIVersion, objects } = request;
  if (typeof desiredAPIVersion !== 'string' || desiredAPIVersion === '') return refuse(`request.desiredAPIVersion must be a group/version string, got ${describe(desiredAPIVersion)}`, identity);
  if (!Array.isArray(objects)) return refuse(`request.objects must be an array, got ${describe(objects)}`, identity);
  return { ok: true, apiVersion: version, request: { uid, desiredAPIVersion, objects: objects as unknown[] } };
}

export function convertedReview(apiVersion: ConversionReviewApiVersion, uid: string, convertedObjects: readonly KubernetesObject[]): ConversionReview {
  return { apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects, result: { status: 'Success' } } };
}

/** Every object or none: a failed review carries no converted objects. */
export function failedReview({ apiVersion, uid }: ReviewIdentity, message: string): ConversionReview {
  return { apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects: [], result: { status: 'Failure', message } } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
