/** AdmissionReview requests as the API server would send them, built from what a test gives. */
import type { AdmissionRequest, AdmissionReview, ReviewApiVersion } from '../webhook/admission/review.js';
import type { AdmissionOperation, GroupVersionKind, GroupVersionResource, KubernetesObject, UserInfo } from '../webhook/contract.js';
import { requestKindAndResource, type RulesOf } from './request-kind.js';

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
export function admissionRequest<T extends object>(input: RequestInput<T>, webhook?: RulesOf): AdmissionRequest {
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
export function admissionReview<T extends object>(input: RequestInput<T>, apiVersion: ReviewApiVersion = 'admission.k8s.io/v1', webhook?: RulesOf): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', request: admissionRequest(input, webhook) };
}
