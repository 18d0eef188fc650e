/**
 * The contract between `runPolicy` (shaper-gen/testing) and the policy evaluator
 * in @shaper-gen/generator (`@shaper-gen/generator/policy`, whose default export
 * `satisfies` this interface): declared once, here, and checked by the compiler
 * on the generator's side.
 */
import type { AdmissionRequest } from '../webhook/admission/review.js';
import type { ResolvedMutatingPolicy } from './options/mutating-policy-types.js';
import type { ResolvedValidatingPolicy } from './options/policy-types.js';

/** One answer of the authorizer a test declares; fields left out match anything, a field given only that value (`group: ''` is the core group). */
export interface AuthorizerAnswer {
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** A non-resource path (`authorizer.path('/healthz')`). */
  path?: string;
  /** The user asked about: the request's user, or `serviceAccount(…)`'s `system:serviceaccount:<namespace>:<name>`. */
  user?: string;
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
}

export interface PolicyRefusal {
  matched: boolean;
  why?: string;
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
}

export interface PolicyEvaluator {
  evaluateValidatingPolicy: (
    policy: ResolvedValidatingPolicy,
    input: { request: AdmissionRequest; params?: unknown; namespaceObject?: unknown; validationActions?: readonly string[]; authorizer?: readonly AuthorizerAnswer[] },
  ) => PolicyRefusal & { warnings: readonly string[]; auditAnnotations: Readonly<Record<string, string>> };
  evaluateMutatingPolicy: (
    policy: ResolvedMutatingPolicy,
    input: { request: AdmissionRequest; params?: unknown; namespaceObject?: unknown; schema?: object; authorizer?: readonly AuthorizerAnswer[] },
  ) => PolicyRefusal & { object: unknown };
}
