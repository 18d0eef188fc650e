/**
 * `admit`: a request through the admission chain as the API server runs it —
 * every matching MutatingAdmissionPolicy in turn (reinvoked when its
 * reinvocationPolicy asks), then every ValidatingAdmissionPolicy — over plain
 * `admissionregistration.k8s.io/v1` policies and bindings from any source:
 * objects, YAML text or files (a rendered chart's output), so policies written
 * without a decorator are tested the same way, and decorated classes as the
 * chart installs them. The API server's own plugins
 * run it (@shaper-gen/generator's CEL engine).
 */
import type { KubernetesObject } from '../webhook/contract.js';
import { admissionRequest, type RequestInput } from '../testing/admission-request.js';
import type { AuthorizerAnswer, ChainAnswer } from './evaluator-contract.js';
import { loadEvaluator } from './run-policy.js';

export interface AdmitInput<T extends object = KubernetesObject> extends RequestInput<T> {
  /**
   * The policies and bindings: objects (or lists of them), YAML text with one or more documents, or paths of
   * YAML files — `helm template` output works; kinds other than policies, bindings and CRDs are left out —, or
   * `@ValidatingPolicy`/`@MutatingPolicy` classes (as the chart installs them by default: binding named as the policy).
   */
  policies: (string | object | (abstract new (...args: never[]) => unknown))[];
  /** The cluster's Namespaces (with their labels, for namespaceSelectors); default: the request's own, labelled `kubernetes.io/metadata.name`. */
  namespaces?: object[];
  /** The objects bindings' paramRefs select (by name or selector, in the binding's or the request's namespace). */
  params?: object[];
  /** The authorizer's answers for policies that ask it: the first rule whose fields all match answers; an unanswered check is an error naming it. */
  authorizer?: AuthorizerAnswer[];
}

export interface AdmissionDecision<T extends object = KubernetesObject> {
  allowed: boolean;
  /** status.code of the refusal, 200 when allowed. */
  code: number;
  reason?: string;
  /** The API server's message, naming the policy and its binding by their own names. */
  message?: string;
  warnings: string[];
  auditAnnotations: Record<string, string>;
  /** The object after every mutation (as it came when refused before any). */
  object?: T;
  /** The policies that ran, through which binding, in order; pass 2 is the mutating plugin's reinvocation. */
  steps: ChainAnswer['steps'][number][];
}

/** Runs one request through every given policy as the API server's admission chain would. */
export async function admit<T extends object>(input: AdmitInput<T>): Promise<AdmissionDecision<T>> {
  const { policies, namespaces, params, authorizer, ...requestInput } = input;
  const request = admissionRequest(requestInput);
  const { admitChain } = await loadEvaluator();
  const answer = await admitChain({ request, policies, namespaces, params, authorizer });
  return {
    allowed: answer.allowed,
    code: answer.status?.code ?? 200,
    ...(answer.status && { reason: answer.status.reason, message: answer.status.message }),
    warnings: [...answer.warnings],
    auditAnnotations: { ...answer.auditAnnotations },
    ...(answer.object !== null && answer.object !== undefined && { object: answer.object as T }),
    steps: [...answer.steps],
  };
}
