/**
 * Test helpers for handler authors (`shaper-gen/testing`): build an admission
 * request, run a handler exactly as the server does, and read back the
 * decision — including the object the API server would store after applying
 * the returned JSON Patch — or build the `ctx` to call a handler's methods
 * directly (`contextFor`).
 */
import fastJsonPatch from 'fast-json-patch';
import { admit } from '../webhook/admission/admit.js';
import { responseCode, type AdmissionResponse, type StatusCause } from '../webhook/admission/review.js';
import type { KubernetesObject, WebhookHandler } from '../webhook/contract.js';
import { admissionRequest, type RequestInput } from './admission-request.js';
import { decoratedHandler, requestDependencies, type ContextOptions } from './context-for.js';
import { admittedRequest, type CrdSource } from './custom-resource.js';

export { admissionRequest, admissionReview, type RequestInput } from './admission-request.js';
export { contextFor, type ContextOptions, type HandlerMethod, type TestContext } from './context-for.js';
export { runPolicy, type AuthorizerAnswer, type PolicyDecision, type PolicyInput } from '../policy/run-policy.js';
export { convert, ConversionFailure } from './convert.js';
export { admit, type AdmissionDecision, type AdmitInput } from '../policy/admit-chain.js';
export { validateCustomResource, type CrdSource, type CustomResourceCause, type CustomResourceInput, type CustomResourceResult, type CustomResourceStatus } from './custom-resource.js';

export interface Decision<T extends object = KubernetesObject> {
  allowed: boolean;
  /** status.code of a denial (or 200 when allowed). */
  code: number;
  reason?: string;
  message?: string;
  causes: StatusCause[];
  warnings: string[];
  /** The JSON Patch operations, decoded; empty when nothing changed. */
  patch: fastJsonPatch.Operation[];
  /** The object after applying the patch to the request's object: what the API server would store. */
  patched?: T;
  response: AdmissionResponse;
}

export interface RunOptions extends ContextOptions {
  /** Override the handler's deadline (ms). */
  deadlineMs?: number;
  /**
   * The CRDs of custom resources: the handler receives the object pruned and defaulted by its CRD, as the API server
   * sends it. Default: the CRDs the project declares (its TypeScript kinds, shaper.yaml's `crds`); `[]`: none.
   */
  crds?: CrdSource[];
}

/**
 * Runs a decorated handler (class or instance) on one request, as `shaper-gen serve` would; a custom resource's
 * objects are first pruned and defaulted by its CRD, as the API server decodes them before it calls webhooks.
 */
export async function runWebhook<T extends object>(handler: WebhookHandler | (new () => WebhookHandler), input: RequestInput<T>, options: RunOptions = {}): Promise<Decision<T>> {
  const { instance, webhook } = decoratedHandler(handler);
  const request = await admittedRequest(admissionRequest(input, webhook), options.crds);
  const result = await admit(webhook, instance, request, { ...requestDependencies(options), deadlineMs: options.deadlineMs });
  const { response, patch = [] } = result;
  const patched = request.object && webhook.mutating ? (fastJsonPatch.applyPatch(request.object, structuredClone(patch), true, false).newDocument as T) : undefined;
  return {
    allowed: response.allowed,
    code: responseCode(response),
    reason: response.status?.reason,
    message: response.status?.message,
    causes: response.status?.details?.causes ?? [],
    warnings: response.warnings ?? [],
    patch,
    patched,
    response,
  };
}
