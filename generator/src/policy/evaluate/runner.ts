/**
 * What evaluating any policy's expressions locally takes: the API server's
 * own evaluator (the CEL engine: k8s.io/apiserver compiled to WebAssembly),
 * called as its policy plugins call it — the expressions of one field of the
 * policy in one call, variables computed at most once per call, the runtime
 * cost budget shared — and the authorizer answered from the test's rules.
 */
import type { ResolvedPolicy } from 'shaper-gen/internal/generator';
import { evaluate, MATCH_CONDITIONS_BUDGET, type AuthorizerCheck, type EvaluateAnswer, type ExpressionKind, type ExpressionResult, type PolicyShape } from '../../cel/engine/index.js';
import type { EvaluationInput } from './request.js';

/** An expression reached the authorizer with a check the test declared no answer for. */
export class AuthorizerNotDeclared extends Error {
  override name = 'AuthorizerNotDeclared';
}

export function defaultNamespaceObject(namespace: string | undefined): unknown {
  if (!namespace) return null;
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace, labels: { 'kubernetes.io/metadata.name': namespace } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export interface Evaluation {
  readonly results: readonly ExpressionResult[];
  readonly remainingBudget: bigint;
  /** The budget ran out: the API server's text. */
  readonly budgetError?: string;
}

export interface Runner {
  /** The policy's expressions of one kind, in one call of the API server's evaluator, within the budget left. */
  readonly evaluate: (kind: Exclude<ExpressionKind, 'applyConfiguration' | 'jsonPatch'>, expressions: readonly (string | null)[], budget: bigint) => Evaluation;
  /** A mutation on the object the ones before it produced: the object the API server's patcher makes of it, or the error. */
  readonly mutate: (kind: 'applyConfiguration' | 'jsonPatch', expression: string, object: unknown, budget: bigint) => { readonly object: unknown } | { readonly error: string };
}

function describeCheck(check: AuthorizerCheck): string {
  const target = check.path
    ? `path '${check.path}'`
    : `resource '${check.resource}${check.subresource ? `/${check.subresource}` : ''}' (group '${check.group}') in namespace '${check.namespace}' named '${check.name}'`;
  return `user '${check.user}' verb '${check.verb}' on ${target}`;
}

/** The answer, or the test's missing authorizer answer thrown, named with the option to declare it in. */
export function answered<T extends Pick<EvaluateAnswer, 'unansweredAuthorizerChecks'>>(answer: T, option = "runPolicy's authorizer option"): T {
  const check = answer.unansweredAuthorizerChecks?.[0];
  if (check)
    throw new AuthorizerNotDeclared(
      `the policy asks the authorizer about ${describeCheck(check)}, which the test declares no answer for: add it to ${option}, e.g. authorizer: [{ verb: '${check.verb}', resource: '${check.resource}', decision: 'allow' }]`,
    );
  return answer;
}

/** Evaluates the policy's expressions on the request with the API server's evaluator. */
export function expressionRunner(policy: ResolvedPolicy, input: EvaluationInput & { readonly crds?: readonly object[] }, namespaceObject: unknown): Runner {
  const shape: PolicyShape = { hasParams: policy.paramKind !== undefined, variables: policy.variables.map(({ name, expression }) => ({ name, expression })) };
  const admission = (object: unknown) => ({
    request: input.request,
    object: object ?? null,
    oldObject: input.request.oldObject ?? null,
    params: input.params ?? null,
    namespaceObject: namespaceObject ?? null,
    ...(input.authorizer && { authorizer: input.authorizer }),
    ...(input.crds && input.crds.length > 0 && { crds: input.crds }),
  });
  return {
    evaluate(kind, expressions, budget) {
      if (expressions.length === 0) return { results: [], remainingBudget: budget };
      const answer = answered(evaluate({ policy: shape, kind, expressions, input: admission(input.request.object), budget: String(budget) }));
      return { results: answer.results ?? [], remainingBudget: BigInt(answer.remainingBudget), ...(answer.budgetError !== undefined && { budgetError: answer.budgetError }) };
    },
    mutate(kind, expression, object, budget) {
      const answer = answered(evaluate({ policy: shape, kind, expressions: [expression], input: admission(object), budget: String(budget) }));
      const error = answer.budgetError ?? answer.results?.[0]?.error;
      return error !== undefined ? { error } : { object: answer.object ?? null };
    },
  };
}

/**
 * The policy's matchConditions (webhook/matchconditions matcher.go): any
 * false leaves the request out; errors with none false are one error (an
 * aggregate of several), which the failure policy decides on.
 */
export function matchConditions(policy: ResolvedPolicy, runner: Runner): { unmatched: string } | { error?: string } {
  const conditions = policy.matchConditions;
  const { results, budgetError } = runner.evaluate(
    'matchCondition',
    conditions.map((condition) => condition.expression),
    MATCH_CONDITIONS_BUDGET,
  );
  if (budgetError !== undefined) return policy.failurePolicy === 'Fail' ? { error: budgetError } : { unmatched: 'the matchConditions ran out of cost budget and failurePolicy is Ignore' };
  const errors: string[] = [];
  for (const [index, result] of results.entries()) {
    if (result.error !== undefined) errors.push(result.error);
    else if (result.value === false) return { unmatched: `matchCondition "${conditions[index]!.name}" is false` };
  }
  if (errors.length === 0) return {};
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}
