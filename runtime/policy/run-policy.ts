/**
 * `runPolicy`: a `@ValidatingPolicy` or `@MutatingPolicy` class evaluated
 * locally on one request, returning what the API server would answer —
 * allowed or denied with its status, warnings and audit annotations, and for
 * a mutating policy the object it produces. The CEL evaluation lives in
 * @shaper-gen/generator (a dev dependency of every shaper-gen project), beside
 * the declarations the generator type-checks with, so the production runtime
 * never carries a CEL library.
 */
import type { KubernetesObject } from '../webhook/contract.js';
import type { ValidationAction } from './options/policy-types.js';
import { mutatingPolicyOf, validatingPolicyOf } from './decorator.js';
import { admissionRequest, type RequestInput } from '../testing/admission-request.js';
import { projectSchemaOf } from '../testing/custom-resource.js';
import type { AuthorizerAnswer, PolicyEvaluator, PolicyRefusal } from './evaluator-contract.js';

export type { AuthorizerAnswer } from './evaluator-contract.js';

export interface PolicyInput<T extends object = KubernetesObject> extends RequestInput<T> {
  /** The parameter object the binding passes as `params` (policies with paramKind). */
  params?: object;
  /** The request's Namespace; default: a Namespace of that name with its `kubernetes.io/metadata.name` label. */
  namespaceObject?: object | null;
  /** The binding's validationActions, as a chart value may set them; default: the policy's own. */
  validationActions?: ValidationAction[];
  /**
   * Mutating policies on a custom resource: its structural schema (its CRD's `openAPIV3Schema`), which an
   * ApplyConfiguration is merged by, as the API server merges it; default: the project's CRD of the kind.
   * Built-in kinds' schemas are shipped.
   */
  schema?: object;
  /**
   * The authorizer's answers, for policies that call `authorizer`: the first rule whose fields (those given) all
   * match a check answers it. A check no rule answers fails the test with an error naming it, never a guess.
   */
  authorizer?: AuthorizerAnswer[];
}

export interface PolicyDecision {
  /** False when the policy's rules, selectors or matchConditions leave the request out (`why` says which). */
  matched: boolean;
  why?: string;
  allowed: boolean;
  /** status.code of a denial, 200 when allowed. */
  code: number;
  reason?: string;
  /** The message the API server returns, e.g. `profiles.shaper.io "p" is forbidden: ValidatingAdmissionPolicy '…' with binding '…' denied request: …`. */
  message?: string;
  warnings: string[];
  /** The audit annotations the API server would add to the request's audit event. */
  auditAnnotations: Record<string, string>;
  /** Mutating policies: the object after the policy's mutations (as it came when the policy did not apply or refused). */
  object?: unknown;
}

const EVALUATOR = '@shaper-gen/generator/policy';

export async function loadEvaluator(): Promise<PolicyEvaluator> {
  try {
    // A variable specifier: the runtime is compiled without the generator's types, which depend on the runtime; the generator's module satisfies PolicyEvaluator.
    const specifier: string = EVALUATOR;
    return ((await import(specifier)) as { default: PolicyEvaluator }).default;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
    throw new Error('runPolicy evaluates CEL with @shaper-gen/generator, which is not installed here: npm install --save-dev @shaper-gen/generator', { cause: error });
  }
}

function decided(result: PolicyRefusal): Pick<PolicyDecision, 'matched' | 'why' | 'allowed' | 'code' | 'reason' | 'message'> {
  return {
    matched: result.matched,
    ...(result.why !== undefined && { why: result.why }),
    allowed: result.allowed,
    code: result.status?.code ?? 200,
    ...(result.status && { reason: result.status.reason, message: result.status.message }),
  };
}

/** Evaluates a `@ValidatingPolicy` or `@MutatingPolicy` class on one request, as the API server would. */
export async function runPolicy<T extends object>(policyClass: abstract new (...args: never[]) => unknown, input: PolicyInput<T>): Promise<PolicyDecision> {
  const { params, namespaceObject, validationActions, schema, authorizer, ...requestInput } = input;
  const mutating = mutatingPolicyOf(policyClass);
  if (mutating) {
    const request = admissionRequest(requestInput, mutating);
    const { evaluateMutatingPolicy } = await loadEvaluator();
    const merges = mutating.mutations.some((mutation) => mutation.patchType === 'ApplyConfiguration');
    const mergeSchema = schema ?? (merges ? await projectSchemaOf(request.kind, request.resource.resource) : undefined);
    const result = evaluateMutatingPolicy(mutating, { request, params, namespaceObject, schema: mergeSchema, authorizer });
    return { ...decided(result), warnings: [], auditAnnotations: {}, object: result.object };
  }
  const policy = validatingPolicyOf(policyClass);
  if (!policy) throw new TypeError(`runPolicy: ${policyClass.name} is not decorated with @ValidatingPolicy or @MutatingPolicy`);
  const request = admissionRequest(requestInput, policy);
  const { evaluateValidatingPolicy } = await loadEvaluator();
  const result = evaluateValidatingPolicy(policy, { request, params, namespaceObject, validationActions, authorizer });
  return { ...decided(result), warnings: [...result.warnings], auditAnnotations: { ...result.auditAnnotations } };
}
