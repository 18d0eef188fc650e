/**
 * matchConditions compiled as the API server compiles them before it stores
 * a webhook configuration (k8s.io/apiserver pkg/admission/plugin/cel): the
 * same variables with the same types, the same function libraries
 * (library.ts), the same compile-time literal checks (validators.ts),
 * and the result must be exactly bool. The CEL library
 * (@marcbachmann/cel-js) is loaded only when some webhook has
 * matchConditions, so that a generator run without them does not pay for it.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { compileExpression, resultTypeProblem } from './compile.js';
import { admissionEnvironment } from './environment.js';

export interface CelProblem {
  /** Index into matchConditions. */
  readonly index: number;
  /** Where in the expression the problem is (0-based). */
  readonly offset: number;
  readonly message: string;
}

let environment: Environment | undefined;

/**
 * Every matchCondition expression that the API server would refuse to store,
 * with where in the expression. Entries without a non-blank string expression
 * are skipped: the option rules report those.
 */
export function checkMatchConditions(conditions: readonly unknown[]): CelProblem[] {
  return conditions.flatMap((condition, index) => {
    const expression = (condition as { expression?: unknown } | null)?.expression;
    if (typeof expression !== 'string' || expression.trim() === '') return [];
    const problem = checkExpression(expression);
    return problem
      ? [
          {
            index,
            offset: problem.offset,
            message: problem.compiled
              ? `matchConditions[${index}].expression: CEL compilation failed at column ${problem.offset + 1}: ${problem.message}`
              : `matchConditions[${index}].expression ${problem.message}`,
          },
        ]
      : [];
  });
}

/** The first problem of one expression, compiled in the webhook's environment (no params) to a bool. */
function checkExpression(expression: string): { offset: number; message: string; compiled: boolean } | undefined {
  environment ??= admissionEnvironment();
  return resultTypeProblem(compileExpression(environment, expression), ['bool']);
}
