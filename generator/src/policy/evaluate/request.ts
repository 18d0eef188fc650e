/** What a policy is evaluated on: the admission request and what its binding adds. */
import type { AuthorizerRule } from '../../cel/engine/index.js';

export interface PolicyRequest {
  readonly operation: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subResource?: string;
  readonly requestKind?: { readonly group: string; readonly version: string; readonly kind: string };
  readonly requestResource?: { readonly group: string; readonly version: string; readonly resource: string };
  readonly requestSubResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly userInfo?: { readonly username?: string; readonly uid?: string; readonly groups?: readonly string[]; readonly extra?: Readonly<Record<string, readonly string[]>> };
  readonly object?: unknown;
  readonly oldObject?: unknown;
  readonly dryRun?: boolean;
  readonly options?: unknown;
}

export interface EvaluationInput {
  readonly request: PolicyRequest;
  /** The parameter object the binding selects (policies with paramKind). */
  readonly params?: unknown;
  /** The request's Namespace object; default: a Namespace of that name with its kubernetes.io/metadata.name label. */
  readonly namespaceObject?: unknown;
  /** The binding's actions; default the policy's own. */
  readonly validationActions?: readonly string[];
  /** Default: the policy's name (the chart names each binding after its policy). */
  readonly bindingName?: string;
  /** The authorizer's answers, for policies that ask it; a check none answers is an error naming it. */
  readonly authorizer?: readonly AuthorizerRule[];
}
