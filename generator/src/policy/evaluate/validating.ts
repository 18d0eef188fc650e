/**
 * A ValidatingAdmissionPolicy and its binding evaluated locally, returning
 * what the API server would: the same decision, status (code, reason,
 * message), warnings and audit annotations
 * (k8s.io/apiserver pkg/admission/plugin/policy/validating: validator.go and
 * dispatcher.go). The expressions run in the API server's own evaluator
 * (the CEL engine), grouped and budgeted as validator.go runs them:
 * matchConditions, validations, messageExpressions with the budget the
 * validations left, audit annotations; the authorizer answers from the
 * test's rules.
 */
import type { ResolvedValidatingPolicy } from 'shaper-gen/internal/generator';
import { mismatch } from './match.js';
import { clientWarnings, RUNTIME_BUDGET, type ExpressionResult } from '../../cel/engine/index.js';
import type { EvaluationInput } from './request.js';
import { defaultNamespaceObject, expressionRunner, matchConditions, type Runner } from './runner.js';

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
  const runner = expressionRunner(policy, input, namespaceObject);
  const errorDecision = (message: string): Decision => (policy.failurePolicy === 'Fail' ? { action: 'deny', message, reason: 'Invalid', error: true } : { action: 'admit' });
  const onlyError = (message: string) => dispatch(policy, input, [errorDecision(message)], { published: {}, errors: [] });

  const conditions = matchConditions(policy, runner);
  if ('unmatched' in conditions) return notMatched(conditions.unmatched);
  if (conditions.error !== undefined) {
    if (policy.failurePolicy !== 'Fail') return notMatched('a matchCondition failed and failurePolicy is Ignore');
    return onlyError(conditions.error);
  }
  const { validations } = policy;
  const evaluated = runner.evaluate(
    'validation',
    validations.map((validation) => validation.expression),
    RUNTIME_BUDGET,
  );
  if (evaluated.budgetError !== undefined) return onlyError(evaluated.budgetError);
  const messages = runner.evaluate(
    'messageExpression',
    validations.map((validation) => validation.messageExpression ?? null),
    evaluated.remainingBudget,
  );
  // One decision per validation, admitted ones included: the Audit annotation's expressionIndex counts them all.
  const decisions = evaluated.results.map((result, index): Decision => {
    const validation = validations[index]!;
    if (result.error !== undefined) return errorDecision(result.error);
    if (messages.budgetError !== undefined) return errorDecision(`failed messageExpression: ${messages.budgetError}`);
    if (result.value !== true) return { action: 'deny', message: failureMessage(validation, messages.results[index]), reason: validation.reason ?? 'Invalid', error: false };
    return { action: 'admit' };
  });
  const annotations = auditAnnotations(policy, runner);
  if ('error' in annotations) return onlyError(annotations.error);
  return dispatch(policy, input, decisions, annotations);
}

function notMatched(why: string): PolicyResult {
  return { matched: false, why, allowed: true, warnings: [], auditAnnotations: {} };
}

function failureMessage(validation: ResolvedValidatingPolicy['validations'][number], evaluated: ExpressionResult | undefined): string {
  if (typeof evaluated?.value === 'string') {
    const message = evaluated.value.trim();
    if (message !== '' && Buffer.byteLength(message) <= MAX_MESSAGE_BYTES && !message.includes('\n')) return message;
  }
  if (validation.message !== undefined && validation.message.trim() !== '') return validation.message.trim();
  return `failed expression: ${validation.expression.trim()}`;
}

interface Annotations {
  readonly published: Record<string, string>;
  /** Errors deny the request when failurePolicy is Fail, whatever the binding's actions. */
  readonly errors: readonly string[];
}

function auditAnnotations(policy: ResolvedValidatingPolicy, runner: Runner): Annotations | { error: string } {
  const evaluated = runner.evaluate(
    'auditAnnotation',
    policy.auditAnnotations.map((annotation) => annotation.valueExpression),
    RUNTIME_BUDGET,
  );
  if (evaluated.budgetError !== undefined) return { error: evaluated.budgetError };
  const published: Record<string, string> = {};
  const errors: string[] = [];
  for (const [index, result] of evaluated.results.entries()) {
    const annotation = policy.auditAnnotations[index]!;
    if (result.error !== undefined) {
      errors.push(result.error);
    } else if (result.type === 'string') {
      // validator.go publishes the value trimmed, and leaves out one that is empty once trimmed.
      const trimmed = (result.value as string).trim();
      if (trimmed !== '') published[`${policy.name}/${annotation.key}`] = trimmed.slice(0, MAX_AUDIT_VALUE);
    } else if (result.type !== 'null_type') {
      errors.push(`valueExpression '${annotation.valueExpression}' resulted in unsupported return type: ${result.type}. Return type must be either string or null.`);
    }
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
  if (!first) return { matched: true, allowed: true, warnings: clientWarnings(warnings), auditAnnotations };
  const message = `ValidatingAdmissionPolicy '${policy.name}' with binding '${binding}' denied request: ${first.message}`;
  const { request } = input;
  const groupResource = request.resource.group ? `${request.resource.resource}.${request.resource.group}` : request.resource.resource;
  const meta = (request.object ?? request.oldObject) as { metadata?: { name?: string; generateName?: string } } | null | undefined;
  const name = request.name || meta?.metadata?.name || meta?.metadata?.generateName || 'Unknown';
  return {
    matched: true,
    allowed: false,
    status: { code: REASON_CODES[first.reason] ?? 422, reason: first.reason, message: `${groupResource} "${name}" is forbidden: ${message}`, causes: [{ message }] },
    warnings: clientWarnings(warnings),
    auditAnnotations,
  };
}
