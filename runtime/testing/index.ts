/**
 * Test helpers for handler authors (`shaper-gen/testing`): build an admission
 * request, run a handler exactly as the server does, and read back the
 * decision — including the object the API server would store after applying
 * the returned JSON Patch.
 */
import fastJsonPatch from 'fast-json-patch';
import { pino, type Logger } from 'pino';
import { admit } from '../admission/admit.js';
import { MemoryObjects } from '../cache/memory-objects.js';
import { responseCode, type AdmissionRequest, type AdmissionResponse, type AdmissionReview, type ReviewApiVersion, type StatusCause } from '../admission/review.js';
import type { AdmissionOperation, GroupVersionKind, GroupVersionResource, KubeClient, KubernetesObject, UserInfo, WebhookHandler } from '../contract.js';
import { webhookOf } from '../decorator.js';
import type { ResolvedWebhook } from '../options/types.js';
import { requestKindAndResource } from './request-kind.js';

export interface RequestInput<T extends object = KubernetesObject> {
  operation?: AdmissionOperation;
  object?: T;
  oldObject?: T;
  /** Defaults to the object's namespace. */
  namespace?: string;
  /** Defaults to the object's name. */
  name?: string;
  userInfo?: UserInfo;
  dryRun?: boolean;
  subResource?: string;
  options?: KubernetesObject;
  kind?: GroupVersionKind;
  resource?: GroupVersionResource;
  uid?: string;
}

let uidCounter = 0;

/**
 * An AdmissionReview request as the API server would send it. Kind and resource come from `input`, else from the
 * object's apiVersion and kind, else from the webhook's rules where they name one group, version and resource
 * (the kind only for Kubernetes' built-in resources); otherwise it throws, asking for apiVersion and kind on the object.
 */
export function admissionRequest<T extends object>(input: RequestInput<T>, webhook?: ResolvedWebhook): AdmissionRequest {
  const operation = input.operation ?? (input.oldObject && input.object ? 'UPDATE' : input.oldObject ? 'DELETE' : 'CREATE');
  // Typed models (e.g. @kubernetes/client-node's V1ConfigMap) are plain objects on the wire.
  const object = input.object as KubernetesObject | undefined;
  const oldObject = input.oldObject as KubernetesObject | undefined;
  const sample = object ?? oldObject;
  const { kind, resource } = requestKindAndResource({ kind: input.kind, resource: input.resource, object: sample }, webhook);
  return {
    uid: input.uid ?? `00000000-0000-4000-8000-${String(++uidCounter).padStart(12, '0')}`,
    kind,
    resource,
    subResource: input.subResource,
    requestKind: kind,
    requestResource: resource,
    name: input.name ?? sample?.metadata?.name,
    namespace: input.namespace ?? sample?.metadata?.namespace,
    operation,
    userInfo: input.userInfo ?? { username: 'test-user', groups: ['system:authenticated'] },
    object: operation === 'DELETE' ? null : (object ?? null),
    oldObject: oldObject ?? null,
    dryRun: input.dryRun ?? false,
    options: input.options ?? null,
  };
}

/** A whole AdmissionReview body, for HTTP tests. */
export function admissionReview<T extends object>(input: RequestInput<T>, apiVersion: ReviewApiVersion = 'admission.k8s.io/v1', webhook?: ResolvedWebhook): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', request: admissionRequest(input, webhook) };
}

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

export interface RunOptions {
  /** Kubernetes API access for handlers that use `ctx.kube`; by default any use fails the test. */
  kube?: KubeClient;
  /**
   * What `ctx.cache` holds, by resource as kubectl names it: `{ 'profiles.shaper.io': [profile], configmaps: [cm] }`;
   * an Error instead of the objects makes reads of that resource fail with it. A resource the webhook does not
   * declare in `cache` fails, as it would in the server.
   */
  objects?: Readonly<Record<string, readonly KubernetesObject[] | Error>>;
  log?: Logger;
  /** Override the handler's deadline (ms). */
  deadlineMs?: number;
}

/** Runs a decorated handler (class or instance) on one request, as `shaper-gen serve` would. */
export async function runWebhook<T extends object>(handler: WebhookHandler | (new () => WebhookHandler), input: RequestInput<T>, options: RunOptions = {}): Promise<Decision<T>> {
  const instance = typeof handler === 'function' ? new handler() : handler;
  const webhook = webhookOf(instance.constructor);
  if (!webhook) throw new TypeError(`${instance.constructor.name} is not decorated with @Webhook`);
  const request = admissionRequest(input, webhook);
  const result = await admit(webhook, instance, request, {
    log: options.log ?? pino({ level: 'silent' }),
    kube: options.kube ?? noKube,
    objects: new MemoryObjects(options.objects ?? {}),
    deadlineMs: options.deadlineMs,
  });
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

const noKube: KubeClient = {
  get config(): never {
    throw new Error('this handler uses ctx.kube; pass { kube } to runWebhook');
  },
  api(): never {
    throw new Error('this handler uses ctx.kube; pass { kube } to runWebhook');
  },
};
