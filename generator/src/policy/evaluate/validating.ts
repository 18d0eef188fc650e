/**
 * A ValidatingAdmissionPolicy and its binding evaluated locally, returning
 * what the API server would: the same decision, status (code, reason,
 * message), warnings and audit annotations
 * (k8s.io/apiserver pkg/admission/plugin/policy/validating: validator.go and
 * dispatcher.go). Expressions run in the environment they are type-checked
 * in, with local implementations of the function libraries; what only the
 * API server can evaluate (the authorizer, quantities, …) raises
 * NotEvaluableLocally instead of a guess. Runtime cost limits are not
 * enforced.
 */
import type { ResolvedValidatingPolicy } from 'shaper-gen/internal/generator';
import { mismatch } from './match.js';
import type { EvaluationInput } from './request.js';
import { attempt, defaultNamespaceObject, ExpressionError, expressionRunner, matchConditions } from './runner.js';

export type { EvaluationInput, PolicyRequest } from './request.js';

export interface PolicyStatus {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  readonly causes: readonly { readonly message: string }[];
}

export interface PolicyResult {
  /** False when the rules, selectors or matchConditions leave the request out; `why` says which. */
  readonly matched: boolean;
  readonly why?: string;
  readonly allowed: boolean;
  readonly status?: PolicyStatus;
  readonly warnings: readonly string[];
  /** As the API server adds them to the audit event. */
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

type Decision = { readonly action: 'admit' } | { readonly action: 'deny'; readonly message: string; readonly reason: string; readonly error: boolean };

/** maxAuditAnnotationValueLength and MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_AUDIT_VALUE = 10 * 1024;
const MAX_MESSAGE_BYTES = 5 * 1024;
const REASON_CODES: Readonly<Record<string, number>> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

export function evaluateValidatingPolicy(policy: ResolvedValidatingPolicy, input: EvaluationInput): PolicyResult {
  const { request } = input;
  const namespaceObject = input.namespaceObject === undefined ? defaultNamespaceObject(request.namespace) : input.namespaceObject;
  const why = mismatch(policy, request, namespaceObject);
  if (why) return notMatched(why);
  const { run } = expressionRunner(policy, input, namespaceObject);
  const errorDecision = (message: string): Decision | undefined => (policy.failurePolicy === 'Fail' ? { action: 'deny', message, reason: 'Invalid', error: true } : undefined);

  const conditions = matchConditions(policy, run);
  if ('unmatched' in conditions) return notMatched(conditions.unmatched);
  if (conditions.error !== undefined) {
    const decision = errorDecision(conditions.error);
    if (!decision) return notMatched('a matchCondition failed and failurePolicy is Ignore');
    return dispatch(policy, input, [decision], { published: {}, errors: [] });
  }
  const decisions: Decision[] = [];
  for (const validation of policy.validations) {
    const result = attempt(() => run(validation.expression));
    // One decision per validation, admitted ones included: the Audit annotation's expressionIndex counts them all.
    if ('error' in result) {
      decisions.push(errorDecision(result.error) ?? { action: 'admit' });
    } else if (result.value !== true) {
      decisions.push({ action: 'deny', message: failureMessage(validation, (expression) => run(expression, false)), reason: validation.reason ?? 'Invalid', error: false });
    } else {
      decisions.push({ action: 'admit' });
    }
  }
  return dispatch(policy, input, decisions, auditAnnotations(policy, run));
}

function notMatched(why: string): PolicyResult {
  return { matched: false, why, allowed: true, warnings: [], auditAnnotations: {} };
}

function failureMessage(validation: ResolvedValidatingPolicy['validations'][number], run: (expression: string) => unknown): string {
  if (validation.messageExpression !== undefined) {
    try {
      const value = run(validation.messageExpression);
      if (typeof value === 'string') {
        const message = value.trim();
        if (message !== '' && Buffer.byteLength(message) <= MAX_MESSAGE_BYTES && !message.includes('\n')) return message;
      }
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
    }
  }
  if (validation.message !== undefined && validation.message.trim() !== '') return validation.message.trim();
  return `failed expression: ${validation.expression.trim()}`;
}

interface Annotations {
  readonly published: Record<string, string>;
  /** Errors deny the request when failurePolicy is Fail, whatever the binding's actions. */
  readonly errors: readonly string[];
}

function auditAnnotations(policy: ResolvedValidatingPolicy, run: (expression: string) => unknown): Annotations {
  const published: Record<string, string> = {};
  const errors: string[] = [];
  for (const annotation of policy.auditAnnotations) {
    let value: unknown;
    try {
      value = run(annotation.valueExpression);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      errors.push(error.message);
      continue;
    }
    if (value === null) continue;
    if (typeof value !== 'string') {
      errors.push(`valueExpression '${annotation.valueExpression}' resulted in unsupported return type: ${typeof value}. Return type must be either string or null.`);
      continue;
    }
    // validator.go publishes the value trimmed, and leaves out one that is empty once trimmed.
    const trimmed = value.trim();
    if (trimmed !== '') published[`${policy.name}/${annotation.key}`] = trimmed.slice(0, MAX_AUDIT_VALUE);
  }
  return { published, errors: policy.failurePolicy === 'Fail' ? errors : [] };
}

/** The binding's actions applied to the decisions, and the API server's response. */
function dispatch(policy: ResolvedValidatingPolicy, input: EvaluationInput, decisions: readonly Decision[], annotations: Annotations): PolicyResult {
  const binding = input.bindingName ?? policy.name;
  const actions = input.validationActions ?? policy.validationActions;
  const warnings: string[] = [];
  const failures: { message: string; policy: string; binding: string; expressionIndex: number; validationActions: readonly string[] }[] = [];
  const denied: Extract<Decision, { action: 'deny' }>[] = [];
  decisions.forEach((decision, index) => {
    if (decision.action !== 'deny') return;
    if (actions.includes('Deny')) denied.push(decision);
    if (actions.includes('Audit')) failures.push({ message: decision.message, policy: policy.name, binding, expressionIndex: index, validationActions: actions });
    if (actions.includes('Warn')) warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding}': ${decision.message}`);
  });
  for (const message of annotations.errors) denied.push({ action: 'deny', message, reason: 'Invalid', error: true });
  const auditAnnotations = { ...annotations.published, ...(failures.length > 0 && { 'validation.policy.admission.k8s.io/validation_failure': JSON.stringify(failures.slice(0, 50)) }) };
  const first = denied[0];
  if (!first) return { matched: true, allowed: true, warnings, auditAnnotations };
  const message = `ValidatingAdmissionPolicy '${policy.name}' with binding '${binding}' denied request: ${first.message}`;
  const { request } = input;
  const groupResource = request.resource.group ? `${request.resource.resource}.${request.resource.group}` : request.resource.resource;
  const meta = (request.object ?? request.oldObject) as { metadata?: { name?: string; generateName?: string } } | null | undefined;
  const name = request.name || meta?.metadata?.name || meta?.metadata?.generateName || 'Unknown';
  return {
    matched: true,
    allowed: false,
    status: { code: REASON_CODES[first.reason] ?? 422, reason: first.reason, message: `${groupResource} "${name}" is forbidden: ${message}`, causes: [{ message }] },
    warnings,
    auditAnnotations,
  };
}
