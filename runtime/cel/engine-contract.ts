/**
 * The CEL engine's admission requests and answers, as generator/cel-engine
 * (Go) encodes them: the one contract `serve` (policies it enforces) and the
 * generator (admit, runPolicy) share.
 */
/** One answer the test declares for the authorizer; fields left out match anything, a field given only that value (`group: ''` is the core group); the first rule that matches answers. */
export interface AuthorizerRule {
  readonly verb?: string;
  readonly group?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly path?: string;
  readonly user?: string;
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason?: string;
}

export interface AuthorizerCheck {
  readonly user: string;
  readonly groups?: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
  /** false: a non-resource request (`path`). */
  readonly resourceRequest: boolean;
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
}

export interface AdmissionInput {
  /** The AdmissionRequest's fields that the API server hands to CEL (`request`). */
  readonly request: unknown;
  readonly object?: unknown;
  readonly oldObject?: unknown;
  readonly params?: unknown;
  readonly namespaceObject?: unknown;
  readonly authorizer?: readonly AuthorizerRule[];
  /** The CRDs an ApplyConfiguration on a custom resource is merged by (built-in kinds: the shipped schemas, set with setApiSchemas). */
  readonly crds?: readonly unknown[];
}

/** Policies and their bindings, as `admissionregistration.k8s.io/v1` objects. */
export interface PolicySet {
  readonly mutatingPolicies?: readonly unknown[];
  readonly mutatingBindings?: readonly unknown[];
  readonly validatingPolicies?: readonly unknown[];
  readonly validatingBindings?: readonly unknown[];
}

/** A request and what the API server's policy plugins read from their caches. */
export interface AdmitRequest extends PolicySet {
  readonly input: AdmissionInput;
  /** A set registered before (`registerPolicies`), in place of the four lists: decoded, defaulted and compiled once. */
  readonly policySet?: string;
  /** Leave the object out of the answer (a caller that needs only the decision). */
  readonly omitObject?: boolean;
  /** Objects a paramRef can select, of any kind. */
  readonly params?: readonly unknown[];
  /** Each paramKind's scope by `apiVersion/Kind`; a paramKind left out is one the API server does not serve. */
  readonly paramScopes?: Readonly<Record<string, 'Namespaced' | 'Cluster'>>;
  readonly namespaces?: readonly unknown[];
  /** The CRDs whose schemas an ApplyConfiguration on a custom resource is merged by. */
  readonly crds?: readonly unknown[];
  /**
   * Leave out what the API server does around the policy plugins — the registry's validation of a custom resource
   * between them — as `serve` does: it enforces a policy as a webhook inside the server's own chain, where the
   * server still does it. (A request's namespace must still be among `namespaces`: one that is gone is refused
   * as NamespaceLifecycle refuses it.)
   */
  readonly admissionOnly?: boolean;
}

/** A refusal's `metav1.StatusDetails`, as the API server sends them. */
export interface AdmitStatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes?: readonly { readonly reason?: string; readonly message?: string; readonly field?: string }[];
}

/** One policy's invocation through one binding. */
export interface AdmitStep {
  readonly plugin: 'MutatingAdmissionPolicy' | 'ValidatingAdmissionPolicy';
  readonly policy: string;
  readonly binding: string;
  /** 2 when the admission chain reinvoked the mutating plugin. */
  readonly pass: number;
}

export interface AdmitAnswer {
  readonly allowed: boolean;
  /** The API server's status of a refusal. */
  readonly status?: { readonly code: number; readonly reason: string; readonly message: string; readonly details?: AdmitStatusDetails };
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
  /** The object after the mutating plugin (as it came when nothing mutated it); null for a request without one. */
  readonly object: unknown;
  readonly steps: readonly AdmitStep[];
  readonly unansweredAuthorizerChecks?: readonly AuthorizerCheck[];
}
