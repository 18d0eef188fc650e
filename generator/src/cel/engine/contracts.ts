/**
 * The CEL engine's requests and answers, as generator/cel-engine
 * (Go) encodes them. Costs are decimal strings: they exceed 2^53.
 */
import type { AdmissionInput, AuthorizerCheck } from 'shaper-gen/internal/generator';

export type { AdmissionInput, AdmitAnswer, AdmitRequest, AdmitStep, AuthorizerCheck, AuthorizerRule } from 'shaper-gen/internal/generator';

/** What decides a policy's CEL environments. */
export interface PolicyShape {
  /** The Kubernetes minor whose CEL libraries apply, "1.30" to "1.37"; default the API server's (1.37's: 1.36). */
  readonly version?: string;
  readonly hasParams: boolean;
  readonly variables?: readonly { readonly name: string; readonly expression: string }[];
}

/** The policy field an expression is written in: it sets the result types and the variables declared. */
export type ExpressionKind = 'validation' | 'messageExpression' | 'auditAnnotation' | 'matchCondition' | 'variable' | 'applyConfiguration' | 'jsonPatch';

export interface CompileRequest {
  readonly policy: PolicyShape;
  readonly kind: ExpressionKind;
  readonly expression: string;
  /** The environment of expressions already stored (what the admission plugins run), not of ones being created. */
  readonly stored?: boolean;
}

/** An estimate with `object` and `oldObject` typed from the matched resource's OpenAPI schema (dyn without one). */
export interface EstimateTypedRequest extends CompileRequest {
  readonly objectSchema?: unknown;
}

export interface Cost {
  readonly min: string;
  readonly max: string;
}

export interface CompileAnswer {
  readonly outputType?: string;
  /** The API server's text, e.g. `compilation failed: ERROR: <input>:1:…`. */
  readonly compilationError?: string;
  readonly cost?: Cost;
}

export interface EvaluateRequest {
  readonly policy: PolicyShape;
  readonly kind: ExpressionKind;
  /** Evaluated in one call of the API server's evaluator: variables computed once, the budget shared; null holds a place. */
  readonly expressions: readonly (string | null)[];
  readonly input: AdmissionInput;
  /** Runtime cost budget left. */
  readonly budget: string;
}

export interface ExpressionResult {
  /** The value as JSON; absent for null and for an error. */
  readonly value?: unknown;
  /** The CEL type's name, e.g. `bool`, `string`, `null_type`. */
  readonly type?: string;
  /** The API server's text, e.g. `expression 'x' resulted in error: no such key: y`. */
  readonly error?: string;
}

export interface EvaluateAnswer {
  readonly results?: readonly ExpressionResult[];
  /** After a JSONPatch mutation the patched object; after an ApplyConfiguration the configuration to merge. */
  readonly object?: unknown;
  readonly remainingBudget: string;
  /** The budget ran out: the API server's text. */
  readonly budgetError?: string;
  readonly unansweredAuthorizerChecks?: readonly AuthorizerCheck[];
}

export interface CrdProblem {
  readonly field: string;
  readonly type: string;
  readonly detail: string;
  /** `<field>: <type>: <detail>` as the API server words it. */
  readonly text: string;
}

export interface CrdAnswer {
  /** The API server's refusal to create the CRD (422); absent when it accepts it. */
  readonly message?: string;
  readonly problems?: readonly CrdProblem[];
}

/** One x-kubernetes-validations rule's estimated cost, as apiextensions-apiserver estimates it when the CRD is created. */
export interface RuleCost {
  /** The rule below the schema's root, as the API server's messages name it: `properties[spec].items.x-kubernetes-validations[0].rule`. */
  readonly field: string;
  /** One evaluation's estimated cost. */
  readonly cost: string;
  /** How many times the rule can run: the product of the enclosing maxItems and maxProperties, or the estimate for unbounded ones. */
  readonly cardinality: string;
  /** cost × cardinality: what the API server compares with 10,000,000 and adds to the schema's total. */
  readonly total: string;
  readonly messageExpressionCost?: string;
  readonly error?: string;
}

export interface VersionAnswer {
  readonly go: string;
  readonly 'k8s.io/apiserver': string;
  readonly 'k8s.io/apiextensions-apiserver': string;
  readonly 'github.com/google/cel-go': string;
}

/** The API server's runtime cost limits (k8s.io/apiserver pkg/apis/cel/config.go). */
export const PER_CALL_LIMIT = 1_000_000n;
export const RUNTIME_BUDGET = 10_000_000n;
export const MATCH_CONDITIONS_BUDGET = 2_500_000n;

/** The shipped built-in schemas (kubernetes-schemas/): resources to definitions, and the definitions. */
export interface ApiSchemasRequest {
  readonly resources: Readonly<Record<string, string>>;
  readonly definitions: Readonly<Record<string, unknown>>;
}

/** One write of a custom resource, as a client sends it to the API server (generator/cel-engine/custom_resource.go). */
export interface CustomResourceRequest {
  /** The CustomResourceDefinition, apiextensions.k8s.io/v1, as created on the API server. */
  readonly crd: unknown;
  /** The request's version; default: the object's apiVersion's, else the storage version. */
  readonly version?: string;
  readonly operation?: 'CREATE' | 'UPDATE';
  readonly subresource?: '' | 'status';
  /** The request's namespace; default: the object's, else `default` (namespaced kinds). */
  readonly namespace?: string;
  /** The request's body. */
  readonly object: unknown;
  /** UPDATE: the object as stored before. */
  readonly oldObject?: unknown;
  /** The API server's default is Warn. */
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** The object is what admission produced from a decoded body (after mutation): the registry and storage only, no decoding. */
  readonly admitted?: boolean;
}

/** A Kubernetes `metav1.Status`, as the API server writes a refusal. */
export interface KubernetesStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Failure';
  readonly message: string;
  readonly reason: string;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly { readonly reason: string; readonly message: string; readonly field: string }[];
  };
  readonly code: number;
}

export interface CustomResourceAnswer {
  readonly allowed: boolean;
  /** The object a client reads back (without the uid, creationTimestamp, resourceVersion and managedFields the server assigns). */
  readonly object?: Record<string, unknown>;
  readonly status?: KubernetesStatus;
  readonly warnings: readonly string[];
  /** What admission sees: the body decoded (pruned, defaulted) and an UPDATE's old object as read from storage. */
  readonly admitted?: { readonly object: Record<string, unknown>; readonly oldObject?: Record<string, unknown> };
}
