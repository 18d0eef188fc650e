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

/** What the API server's policy plugins answer for a request (the CEL engine's admit). */
export interface ChainAnswer {
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
  warnings: readonly string[];
  auditAnnotations: Readonly<Record<string, string>>;
  object: unknown;
  steps: readonly { plugin: 'MutatingAdmissionPolicy' | 'ValidatingAdmissionPolicy'; policy: string; binding: string; pass: number }[];
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
  /** A request through every matching MutatingAdmissionPolicy, then every ValidatingAdmissionPolicy, as the API server's plugins run them. */
  admitChain: (input: {
    request: AdmissionRequest;
    /** Objects (or lists of them), YAML text (multi-document), YAML file paths, or decorated policy classes. */
    policies: readonly (string | object)[];
    namespaces?: readonly object[];
    params?: readonly object[];
    authorizer?: readonly AuthorizerAnswer[];
  }) => Promise<ChainAnswer>;
}
