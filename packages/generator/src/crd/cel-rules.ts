/**
 * `x-kubernetes-validations` rules compiled with the Kubernetes CEL libraries
 * (cel-library.ts) and the compile-time literal checks (cel-validators.ts),
 * `self` and `oldSelf` declared `dyn`: syntax, unknown functions and literal
 * mistakes are found here. Typing `self` by the field's schema, as the API
 * server does, is left to the schema-typed CEL checker, which can take these
 * rules with their schemas (the rule and the schema are both at hand where
 * this is called, schema-markers.ts).
 */
import { createRequire } from 'node:module';
import type { Environment } from '@marcbachmann/cel-js';
import { declareKubernetesLibraries } from '../cel-library.js';
import { astProblems, type CheckedNode } from '../cel-validators.js';

interface CheckResult {
  valid: boolean;
  type?: string;
  error?: { message: string; summary?: string; range?: { start: number; end: number } };
}
interface Parsed {
  readonly ast: CheckedNode;
  check(): CheckResult;
}

/** cel-go's parser limit (parser.go) and cel-js limits raised out of the way. */
const MAX_RECURSION_DEPTH = 250;
const NO_LIMIT = 10_000_000;

let environment: Environment | undefined;

function ruleEnvironment(): Environment {
  if (environment) return environment;
  const cel = createRequire(import.meta.url)('@marcbachmann/cel-js') as typeof import('@marcbachmann/cel-js');
  const env = new cel.Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxDepth: MAX_RECURSION_DEPTH, maxAstNodes: NO_LIMIT, maxListElements: NO_LIMIT, maxMapEntries: NO_LIMIT, maxCallArguments: NO_LIMIT },
  });
  declareKubernetesLibraries(env);
  env.registerVariable('self', 'dyn').registerVariable('oldSelf', 'dyn');
  return (environment = env);
}

/** The first problem of a rule (`key` 'rule') or a messageExpression, worded for `@shaper:validation`. */
export function checkRule(expression: string, key: 'rule' | 'messageExpression'): { key: string; message: string } | undefined {
  const at = (message: string) => ({ key, message: `@shaper:validation ${key}: ${message}` });
  if (expression.trim() === '') return at('must not be blank');
  let parsed: Parsed;
  try {
    parsed = ruleEnvironment().parse(expression.trim()) as Parsed;
  } catch (error) {
    const { summary, message } = error as NonNullable<CheckResult['error']>;
    return at(`CEL compilation failed: ${summary ?? message.split('\n')[0]!}`);
  }
  const result = parsed.check();
  if (result.error) return at(`CEL compilation failed: ${result.error.summary ?? result.error.message.split('\n')[0]!}`);
  const [problem] = astProblems(parsed.ast, expression.trim());
  if (problem) return at(`CEL compilation failed: ${problem.message}`);
  const wanted = key === 'rule' ? 'bool' : 'string';
  if (result.type !== wanted && result.type !== 'dyn') return at(`must evaluate to ${wanted} but got ${result.type}`);
  return undefined;
}
