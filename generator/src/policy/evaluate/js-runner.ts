/**
 * The cel-js runner that `@MutatingPolicy` evaluation still uses: the CEL engine's mutation path
 * (runner.ts) loses a policy's variables (`variables.x` is `no such key`), found by the cluster
 * differential; until that is fixed, mutations run here as before.
 *
 * What evaluating any policy's expressions locally takes: the API server's
 * variables built from the request (k8s.io/apiserver pkg/admission/plugin/cel
 * activation), its values as CEL sees them, variables computed once on first
 * use, and its wording of an expression that errors.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { ResolvedPolicy } from 'shaper-gen/internal/generator';
import { admissionEnvironment } from '../../cel/environment.js';
import { rewriteMessageConstruction } from '../../cel/message-construction.js';
import { declareMutationLibrary } from '../../cel/mutation-library.js';
import { NotEvaluableLocally } from '../../cel/runtime-library.js';
import type { EvaluationInput, PolicyRequest } from './request.js';

/** An expression errored: the message is the API server's. */
export class ExpressionError extends Error {}

/** JSON as the API server hands it to CEL: whole numbers are ints (int64), others doubles. */
export function celValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return value;
}

/** cel-js' wording of runtime errors, as cel-go words them. */
export function celGoMessage(error: Error): string {
  const first = error.message.split('\n')[0]!;
  const index = /^No such key: index out of bounds, index (-?\d+) >= size \d+$/.exec(first);
  if (index) return `index out of bounds: ${index[1]}`;
  if (first.startsWith('No such key: ')) return `no such key: ${first.slice('No such key: '.length)}`;
  if (first.startsWith('no such overload')) return 'no such overload';
  const conversion = /^(int|uint|double)\(\) type error: cannot convert to (\w+)$/.exec(first);
  if (conversion) return `type conversion error from 'string' to '${conversion[2]!}'`;
  return first;
}

export function requestVariable(request: PolicyRequest) {
  const gvk = (k: PolicyRequest['kind'] | undefined) => ({ group: k?.group ?? '', version: k?.version ?? '', kind: k?.kind ?? '' });
  const gvr = (r: PolicyRequest['resource'] | undefined) => ({ group: r?.group ?? '', version: r?.version ?? '', resource: r?.resource ?? '' });
  return celValue({
    kind: gvk(request.kind),
    resource: gvr(request.resource),
    subResource: request.subResource ?? '',
    requestKind: gvk(request.requestKind ?? request.kind),
    requestResource: gvr(request.requestResource ?? request.resource),
    requestSubResource: request.requestSubResource ?? request.subResource ?? '',
    name: request.name ?? '',
    namespace: request.namespace ?? '',
    operation: request.operation,
    userInfo: { username: request.userInfo?.username ?? '', uid: request.userInfo?.uid ?? '', groups: request.userInfo?.groups ?? [], extra: request.userInfo?.extra ?? {} },
    dryRun: request.dryRun ?? false,
    options: request.options ?? null,
  });
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

/** An object whose every property access says local evaluation cannot answer. */
export const LOCAL_AUTHORIZER = new Proxy(
  {},
  {
    get(_, property) {
      throw new NotEvaluableLocally(`authorizer${typeof property === 'string' ? `.${property}` : ''} needs the API server's authorizer: shaper-gen/testing cannot evaluate it locally`);
    },
  },
);

/** The value, or the API server's message for an expression that errored; anything else (NotEvaluableLocally) is thrown on. */
export function attempt(evaluate: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: evaluate() };
  } catch (error) {
    if (error instanceof ExpressionError) return { error: error.message };
    throw error;
  }
}

export type Run = (expression: string, authorizer?: boolean) => unknown;

export interface Runner {
  /** An expression of the policy (authorizer declared unless false: a messageExpression has none). */
  readonly run: Run;
  /** A mutation's expression: the patch types and message construction declared, its result converted by the caller. */
  readonly runPatch: (expression: string) => unknown;
  /** What `object` is for the expressions that follow: a mutation sees the object the ones before it produced. */
  readonly setObject: (object: unknown) => void;
}

/** Evaluates expressions of the policy on the request, with variables computed on first use, once, as the API server's composition does. */
export function expressionRunner(policy: ResolvedPolicy, input: EvaluationInput, namespaceObject: unknown): Runner {
  const { request } = input;
  const hasParams = policy.paramKind !== undefined;
  const environments = new Map<boolean, Environment>();
  const environment = (authorizer: boolean) => {
    let env = environments.get(authorizer);
    if (!env)
      environments.set(authorizer, (env = admissionEnvironment({ params: hasParams, authorizer, mode: 'evaluate', declare: (e) => void e.registerVariable('variables', 'map<string, dyn>') })));
    return env;
  };
  const variables: Record<string, unknown> = {};
  const activation: Record<string, unknown> = {
    object: celValue(request.object ?? null),
    oldObject: celValue(request.oldObject ?? null),
    request: requestVariable(request),
    namespaceObject: celValue(namespaceObject ?? null),
    variables,
    authorizer: LOCAL_AUTHORIZER,
    ...(hasParams && { params: celValue(input.params ?? null) }),
  };
  const evaluate = (expression: string, authorizer: boolean): unknown => environment(authorizer).evaluate(expression.trim(), activation) as unknown;
  const reported = (expression: string, evaluation: () => unknown): unknown => {
    try {
      return evaluation();
    } catch (error) {
      if (error instanceof NotEvaluableLocally) throw error;
      throw new ExpressionError(`expression '${expression}' resulted in error: ${celGoMessage(error as Error)}`);
    }
  };
  const run: Run = (expression, authorizer = true) => reported(expression, () => evaluate(expression, authorizer));
  const runPatch = (expression: string) =>
    reported(expression, () => {
      const { text, typeNames } = rewriteMessageConstruction(expression.trim());
      const env = admissionEnvironment({
        params: hasParams,
        mode: 'evaluate',
        declare: (e) => {
          declareMutationLibrary(e, { typeNames, schemaTyped: false }, true);
          e.registerVariable('variables', 'map<string, dyn>');
          return undefined;
        },
      });
      return env.evaluate(text, activation) as unknown;
    });
  for (const variable of policy.variables) {
    let cached: { value: unknown } | { error: Error } | undefined;
    Object.defineProperty(variables, variable.name, {
      enumerable: true,
      get() {
        cached ??= (() => {
          try {
            return { value: evaluate(variable.expression, true) };
          } catch (error) {
            if (error instanceof NotEvaluableLocally) throw error;
            return { error: new Error(`composited variable "${variable.name}" fails to evaluate: ${celGoMessage(error as Error)}`) };
          }
        })();
        if ('error' in cached) throw cached.error;
        return cached.value;
      },
    });
  }
  return { run, runPatch, setObject: (object) => void (activation.object = celValue(object ?? null)) };
}

/**
 * The policy's matchConditions (webhook/matchconditions matcher.go): any
 * false leaves the request out; errors with none false are one error (an
 * aggregate of several), which the failure policy decides on.
 */
export function matchConditions(policy: ResolvedPolicy, run: Run): { unmatched: string } | { error?: string } {
  const errors: string[] = [];
  for (const condition of policy.matchConditions) {
    const result = attempt(() => run(condition.expression));
    if ('error' in result) errors.push(result.error);
    else if (result.value === false) return { unmatched: `matchCondition "${condition.name}" is false` };
  }
  if (errors.length === 0) return {};
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}
