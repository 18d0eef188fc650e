/**
 * The contract between `runPolicy` (shaper-gen/testing) and the policy evaluator
 * in @shaper-gen/generator (`@shaper-gen/generator/policy`, whose default export
 * `satisfies` this interface): declared once, here, and checked by the compiler
 * on the generator's side.
 */
import type { AdmissionRequest } from '../webhook/admission/review.js';
import type { ResolvedMutatingPolicy } from './options/mutating-policy-types.js';
import type { ResolvedValidatingPolicy } from './options/policy-types.js';

export interface PolicyRefusal {
  matched: boolean;
  why?: string;
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
}

export interface PolicyEvaluator {
  evaluateValidatingPolicy: (
    policy: ResolvedValidatingPolicy,
    input: { request: AdmissionRequest; params?: unknown; namespaceObject?: unknown; validationActions?: readonly string[] },
  ) => PolicyRefusal & { warnings: readonly string[]; auditAnnotations: Readonly<Record<string, string>> };
  evaluateMutatingPolicy: (
    policy: ResolvedMutatingPolicy,
    input: { request: AdmissionRequest; params?: unknown; namespaceObject?: unknown; schema?: object },
  ) => PolicyRefusal & { object: unknown };
}
