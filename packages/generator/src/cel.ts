/**
 * matchConditions compiled as the API server compiles them before it stores
 * a webhook configuration (k8s.io/apiserver pkg/admission/plugin/cel): the
 * same variables with the same types, the same function libraries
 * (cel-library.ts), the same compile-time literal checks (cel-validators.ts),
 * and the result must be exactly bool. The CEL library
 * (@marcbachmann/cel-js) is loaded only when some webhook has
 * matchConditions, so that a generator run without them does not pay for it.
 */
import { createRequire } from 'node:module';
import type { Environment } from '@marcbachmann/cel-js';
import { declareKubernetesLibraries } from './cel-library.js';
import { astProblems, type CheckedNode } from './cel-validators.js';

export interface CelProblem {
  /** Index into matchConditions. */
  readonly index: number;
  /** Where in the expression the problem is (0-based). */
  readonly offset: number;
  readonly message: string;
}

/** cel-go's parser limits (parser.go): nesting depth and expression size in code points. */
const MAX_RECURSION_DEPTH = 250;
const MAX_CODE_POINTS = 100_000;
/** cel-js limits cel-go does not have, raised out of the way. */
const NO_LIMIT = 10_000_000;

interface CheckResult {
  valid: boolean;
  type?: string;
  error?: { message: string; summary?: string; range?: { start: number; end: number } };
}
interface Parsed {
  readonly ast: CheckedNode;
  check(): CheckResult;
}

let environment: Environment | undefined;

/** The variables a webhook's matchConditions see, typed as kube-apiserver declares them (no params for webhooks). */
function kubernetesEnvironment(): Environment {
  if (environment) return environment;
  // Synchronous require of an ES module (Node ≥ 22.12): loaded on first use only.
  const cel = createRequire(import.meta.url)('@marcbachmann/cel-js') as typeof import('@marcbachmann/cel-js');
  const gvk = { group: 'string', version: 'string', kind: 'string' };
  const gvr = { group: 'string', version: 'string', resource: 'string' };
  // Homogeneous literals are checked in cel-validators.ts, which exempts string.format's arguments as cel-go does.
  const env = new cel.Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxDepth: MAX_RECURSION_DEPTH, maxAstNodes: NO_LIMIT, maxListElements: NO_LIMIT, maxMapEntries: NO_LIMIT, maxCallArguments: NO_LIMIT },
  });
  declareKubernetesLibraries(env);
  env
    .registerVariable('object', 'dyn')
    .registerVariable('oldObject', 'dyn')
    .registerVariable('authorizer', 'kubernetes.authorization.Authorizer')
    .registerVariable({
      name: 'request',
      schema: {
        kind: gvk,
        resource: gvr,
        subResource: 'string',
        requestKind: gvk,
        requestResource: gvr,
        requestSubResource: 'string',
        name: 'string',
        namespace: 'string',
        operation: 'string',
        userInfo: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' },
        dryRun: 'bool',
        options: 'dyn',
      },
    })
    .registerVariable({
      name: 'namespaceObject',
      schema: {
        metadata: {
          name: 'string',
          generateName: 'string',
          namespace: 'string',
          labels: 'map<string, string>',
          annotations: 'map<string, string>',
          UID: 'string',
          creationTimestamp: 'google.protobuf.Timestamp',
          deletionGracePeriodSeconds: 'int',
          deletionTimestamp: 'google.protobuf.Timestamp',
          generation: 'int',
          resourceVersion: 'string',
          finalizers: 'list<string>',
        },
        spec: { finalizers: 'list<string>' },
        status: { conditions: 'list<dyn>', phase: 'string' },
      },
    });
  return (environment = env);
}

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

/** The first problem of one expression; the API server compiles it trimmed, offsets are into the untrimmed text. */
function checkExpression(expression: string): { offset: number; message: string; compiled: boolean } | undefined {
  const leading = expression.length - expression.trimStart().length;
  const source = expression.trim();
  const at = (offset: number, message: string, compiled = true) => ({ offset: leading + offset, message, compiled });
  if ([...source].length > MAX_CODE_POINTS) return at(0, `expression code point size exceeds limit: size: ${[...source].length}, limit ${MAX_CODE_POINTS}`);
  let parsed: Parsed;
  try {
    parsed = kubernetesEnvironment().parse(source) as Parsed;
  } catch (error) {
    const { summary, message, range } = error as NonNullable<CheckResult['error']>;
    return at(range?.start ?? 0, summary ?? message.split('\n')[0]!);
  }
  const result = parsed.check();
  if (result.error) return at(result.error.range?.start ?? 0, result.error.summary ?? result.error.message.split('\n')[0]!);
  const [problem] = astProblems(parsed.ast, source);
  if (problem) return at(problem.offset, problem.message);
  if (result.type !== 'bool') return at(0, `must evaluate to bool but got ${result.type}`, false);
  return undefined;
}
