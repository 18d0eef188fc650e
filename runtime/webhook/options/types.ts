/**
 * What `@Webhook({...})` accepts and what it resolves to: the public option
 * types, each enumeration declared once as a list with its type derived.
 */
import type { CachedResource } from '../../cache/cached-resource.js';
import { ADMISSION_OPERATIONS } from '../operations.js';
import type { RbacRule } from '../rbac-options.js';

/** What a rule matches: every admission operation, or `'*'`. */
export const OPERATIONS = [...ADMISSION_OPERATIONS, '*'] as const;
export const SCOPES = ['Cluster', 'Namespaced', '*'] as const;
export const FAILURE_POLICIES = ['Fail', 'Ignore'] as const;
export const SIDE_EFFECTS = ['None', 'NoneOnDryRun'] as const;
export const MATCH_POLICIES = ['Exact', 'Equivalent'] as const;
export const REINVOCATION_POLICIES = ['Never', 'IfNeeded'] as const;
export const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

export type Operation = (typeof OPERATIONS)[number];
export type Scope = (typeof SCOPES)[number];
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];
export type SideEffects = (typeof SIDE_EFFECTS)[number];
export type MatchPolicy = (typeof MATCH_POLICIES)[number];
export type ReinvocationPolicy = (typeof REINVOCATION_POLICIES)[number];
export type AdmissionReviewVersion = (typeof ADMISSION_REVIEW_VERSIONS)[number];
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

/** One entry of the webhook's `rules`: which requests the API server sends it. */
export interface RuleOptions {
  /** API groups; `''` is the core group, `'*'` all groups. */
  readonly groups: readonly string[];
  /** API versions, or `'*'`. */
  readonly versions: readonly string[];
  /** Resources (plural), optionally with a subresource: `'profiles'`, `'profiles/status'`, or `'*'` for all. */
  readonly resources: readonly string[];
  /** Operations: CREATE, UPDATE, DELETE, CONNECT or `'*'`. */
  readonly operations: readonly Operation[];
  /** Cluster, Namespaced or `'*'` (the default). */
  readonly scope?: Scope;
}

/** A requirement on one label: its key, an operator, and the values In and NotIn compare with. */
export interface LabelSelectorRequirement {
  /** The label key the requirement applies to. */
  readonly key: string;
  readonly operator: SelectorOperator;
  /**
   * The values for In and NotIn (at least one); none for Exists and DoesNotExist.
   * @shaper:listType atomic
   */
  readonly values?: readonly string[];
}

/**
 * Labels to match, as Kubernetes' metav1.LabelSelector: every matchLabels
 * entry and every matchExpressions requirement must hold.
 * @shaper:mapType atomic
 */
export interface LabelSelector {
  /** `key: value` pairs, each the requirement "key In (value)". */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /**
   * Requirements on labels, all of which must hold.
   * @shaper:listType atomic
   */
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** A CEL precondition evaluated by the API server before it calls the webhook. */
export interface MatchCondition {
  readonly name: string;
  readonly expression: string;
}

/** What `@Webhook({...})` accepts. Omitted options take the Kubernetes defaults. */
export interface WebhookOptions {
  /** HTTP path the server serves the webhook at: `/mutate-…` or `/validate-…`. */
  readonly path: string;
  /** True for a defaulter (MutatingWebhookConfiguration), false for a validator. */
  readonly mutating: boolean;
  /** Webhook name, a DNS subdomain of at least three segments. Default: `<path without '/'>.<first rule group with a dot, else shaper-gen.io>`. */
  readonly name?: string;
  /**
   * The configuration object this webhook belongs to, as a DNS label: rendered as
   * `<chart fullname>-<configuration>`. Default: the chart's one Validating or
   * Mutating configuration, named `<chart fullname>`.
   */
  readonly configuration?: string;
  /** Which requests the API server sends to this webhook (at least one rule). */
  readonly rules: readonly RuleOptions[];
  /** What the API server does when the call fails: Fail (default) or Ignore. */
  readonly failurePolicy?: FailurePolicy;
  /** None (default) or NoneOnDryRun. Some/Unknown are not allowed in admissionregistration/v1. */
  readonly sideEffects?: SideEffects;
  /** 1..30 seconds, default 10. */
  readonly timeoutSeconds?: number;
  /** Equivalent (default) or Exact. */
  readonly matchPolicy?: MatchPolicy;
  /** Mutating webhooks only: Never (default) or IfNeeded. */
  readonly reinvocationPolicy?: ReinvocationPolicy;
  /** AdmissionReview versions the handler accepts, preferred first. Default `['v1']`. */
  readonly admissionReviewVersions?: readonly AdmissionReviewVersion[];
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  /** At most 64, with unique names. */
  readonly matchConditions?: readonly MatchCondition[];
  /**
   * API access the handler's lookups need (`ctx.kube`), like kubebuilder's
   * `+kubebuilder:rbac` markers: `shaper-gen manifests` merges every webhook's
   * rules into the chart's ClusterRole for the server's ServiceAccount.
   */
  readonly rbac?: readonly RbacRule[];
  /**
   * Resources the handler reads through `ctx.cache`: the server keeps them in
   * an informer cache (list + watch), readiness waits for its first sync, and
   * the ClusterRole gets get, list and watch on each.
   */
  readonly cache?: readonly CachedResource[];
}

/** Options that take a default when omitted. */
type DefaultedOption = 'name' | 'failurePolicy' | 'sideEffects' | 'timeoutSeconds' | 'matchPolicy' | 'admissionReviewVersions' | 'rbac' | 'cache';
/** Options that stay undefined when omitted (reinvocationPolicy also for every validating webhook). */
type UndefinedWhenOmitted = 'configuration' | 'reinvocationPolicy' | 'namespaceSelector' | 'objectSelector' | 'matchConditions';

/** A rule after validation, with its scope defaulted. */
export type ResolvedRule = Required<RuleOptions>;

/** A webhook's options after validation, with every default applied. */
export interface ResolvedWebhook extends Pick<WebhookOptions, 'path' | 'mutating'>, Required<Pick<WebhookOptions, DefaultedOption>>, UndefinedWhenOmittedFields {
  readonly rules: readonly ResolvedRule[];
}

/** Present, possibly undefined (a mapped type over a plain union keeps no `?`). */
type UndefinedWhenOmittedFields = { readonly [K in UndefinedWhenOmitted]: WebhookOptions[K] };

/** Every option resolves to a field: the compiler refuses this line otherwise. */
type Assert<T extends true> = T;
type _EveryOptionResolves = Assert<[Exclude<keyof WebhookOptions, keyof ResolvedWebhook>] extends [never] ? true : false>;
