/**
 * What `@ValidatingPolicy({...})` accepts and what it resolves to: a
 * ValidatingAdmissionPolicy and its binding, with the options named as the
 * admissionregistration.k8s.io/v1 API names them and the match vocabulary of
 * `@Webhook` (rules, selectors, matchPolicy, matchConditions).
 */
import type { FailurePolicy, LabelSelector, MatchCondition, MatchPolicy, ResolvedRule, RuleOptions } from '../../webhook/options/types.js';

export const VALIDATION_ACTIONS = ['Deny', 'Warn', 'Audit'] as const;
/** The reasons a validation may give (metav1.StatusReason values the API allows). */
export const VALIDATION_REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'] as const;
export const PARAMETER_NOT_FOUND_ACTIONS = ['Allow', 'Deny'] as const;

export type ValidationAction = (typeof VALIDATION_ACTIONS)[number];
export type ValidationReason = (typeof VALIDATION_REASONS)[number];
export type ParameterNotFoundAction = (typeof PARAMETER_NOT_FOUND_ACTIONS)[number];

/** A named CEL expression, readable by later expressions as `variables.<name>`. */
export interface PolicyVariable {
  readonly name: string;
  readonly expression: string;
}

/** One check: the request is refused (or warned about, or audited) when `expression` is false. */
export interface Validation {
  /** CEL, must evaluate to bool. */
  readonly expression: string;
  /** Shown when the check fails; default `failed expression: <expression>`. */
  readonly message?: string;
  /** CEL evaluating to a string, used instead of `message` when it yields one. */
  readonly messageExpression?: string;
  /** The status reason of the refusal: Invalid (default), Forbidden, Unauthorized or RequestEntityTooLarge. */
  readonly reason?: ValidationReason;
}

/** An audit annotation `<policy name>/<key>` with the value of `valueExpression` (a string, or null to leave it out). */
export interface AuditAnnotation {
  readonly key: string;
  readonly valueExpression: string;
}

/** The kind of the policy's parameter resource. */
export interface ParamKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** Which parameter object the binding gives the policy. */
export interface ParamRef {
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: LabelSelector;
  readonly parameterNotFoundAction: ParameterNotFoundAction;
}

/** What every CEL admission policy accepts, validating or mutating: its name, what it matches, its variables and parameter. */
export interface PolicyOptions {
  /** Policy (and binding) name, a DNS subdomain. Default: `<class name in kebab-case>.<first rule group that is a domain, not Kubernetes' own>`, or the class name in kebab-case alone when the rules name only core and Kubernetes' groups. */
  readonly name?: string;
  /** Which requests the policy sees (matchConstraints.resourceRules); at least one. */
  readonly rules: readonly RuleOptions[];
  /** Requests the policy never sees (matchConstraints.excludeResourceRules). */
  readonly excludeResourceRules?: readonly RuleOptions[];
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  /** Equivalent (default) or Exact. */
  readonly matchPolicy?: MatchPolicy;
  /** At most 64, with unique names; all must be true for the policy to apply. */
  readonly matchConditions?: readonly MatchCondition[];
  /** Named expressions, in order: each may use those before it. */
  readonly variables?: readonly PolicyVariable[];
  /** What the API server does when an expression errors: Fail (default) or Ignore. */
  readonly failurePolicy?: FailurePolicy;
  readonly paramKind?: ParamKind;
  /** Required with paramKind: which object the binding passes as `params`. */
  readonly paramRef?: ParamRef;
}

/** What `@ValidatingPolicy({...})` accepts. */
export interface ValidatingPolicyOptions extends PolicyOptions {
  /** The checks. A policy needs validations, auditAnnotations or both. */
  readonly validations?: readonly Validation[];
  /** At most 20, with unique keys. */
  readonly auditAnnotations?: readonly AuditAnnotation[];
  /** What a failed validation does: Deny (default), Warn, Audit; Deny and Warn not together. The chart can override it per environment. */
  readonly validationActions?: readonly ValidationAction[];
}

/** Options every policy takes a default for when omitted. */
type DefaultedPolicyOption = 'name' | 'matchPolicy' | 'failurePolicy' | 'variables' | 'matchConditions' | 'excludeResourceRules';

/** A policy's shared options after validation, with every default applied. */
export interface ResolvedPolicy extends Required<Pick<PolicyOptions, DefaultedPolicyOption>>, Pick<PolicyOptions, 'namespaceSelector' | 'objectSelector' | 'paramKind' | 'paramRef'> {
  readonly rules: readonly ResolvedRule[];
  readonly excludeResourceRules: readonly ResolvedRule[];
}

/** A ValidatingPolicy's options after validation, with every default applied. */
export interface ResolvedValidatingPolicy extends ResolvedPolicy, Required<Pick<ValidatingPolicyOptions, 'validationActions' | 'validations' | 'auditAnnotations'>> {}

type Assert<T extends true> = T;
type _EveryPolicyOptionResolves = Assert<[Exclude<keyof ValidatingPolicyOptions, keyof ResolvedValidatingPolicy>] extends [never] ? true : false>;
