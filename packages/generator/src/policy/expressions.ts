/**
 * Every CEL expression of a validating policy compiled twice: once as the API
 * server compiles it when the policy is stored (object and params dyn, exact
 * result types), and once with `object` typed from the resource's schema, so
 * that a misspelt field or a wrong type is an error here rather than a
 * runtime error in the cluster. Variables are declared in order, each typed
 * by its expression, as the API server's composition does.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { ProblemPath, ResolvedValidatingPolicy } from 'shaper-gen/internal/generator';
import { compileExpression, resultTypeProblem, type CompileProblem } from '../cel/compile.js';
import { admissionEnvironment } from '../cel/environment.js';
import { declareSchemaTypes, type StructuralSchema } from '../cel/schema-types.js';

export interface ExpressionProblem {
  readonly path: ProblemPath;
  /** Position in the expression (0-based). */
  readonly offset: number;
  readonly message: string;
}

/** The resource whose schema types `object`, when the policy matches exactly one. */
export interface TypedResource {
  /** `profiles.shaper.io/v1alpha1`, for messages. */
  readonly name: string;
  readonly schema: StructuralSchema;
}

interface Site {
  readonly path: ProblemPath;
  readonly expression: string;
  /** Result types the API server accepts; undefined: any (a variable). */
  readonly returns?: readonly string[];
  readonly authorizer: boolean;
  /** Variables visible: those before this index. */
  readonly variables: number;
}

const VARIABLES_TYPE = 'kubernetes.variables';

function sites(policy: ResolvedValidatingPolicy): Site[] {
  const all = policy.variables.length;
  return [
    ...policy.matchConditions.map((c, i) => ({ path: ['matchConditions', i, 'expression'], expression: c.expression, returns: ['bool'], authorizer: true, variables: 0 })),
    ...policy.variables.map((v, i) => ({ path: ['variables', i, 'expression'], expression: v.expression, authorizer: true, variables: i })),
    ...policy.validations.flatMap((v, i) => [
      { path: ['validations', i, 'expression'], expression: v.expression, returns: ['bool'], authorizer: true, variables: all },
      ...(v.messageExpression === undefined ? [] : [{ path: ['validations', i, 'messageExpression'], expression: v.messageExpression, returns: ['string'], authorizer: false, variables: all }]),
    ]),
    ...policy.auditAnnotations.map((a, i) => ({ path: ['auditAnnotations', i, 'valueExpression'], expression: a.valueExpression, returns: ['string', 'null'], authorizer: true, variables: all })),
  ];
}

export function checkPolicyExpressions(policy: ResolvedValidatingPolicy, resource: TypedResource | undefined): ExpressionProblem[] {
  const params = policy.paramKind !== undefined;
  const serverTypes: string[] = [];
  const typedTypes: string[] = [];
  const problems: ExpressionProblem[] = [];
  const environment = (typed: boolean, site: Site, types: readonly string[]): Environment => {
    const schema = typed ? resource?.schema : undefined;
    return admissionEnvironment({
      params,
      authorizer: site.authorizer,
      declare: (env) => {
        const objectType = schema && declareSchemaTypes(env, 'Object', schema);
        declareVariables(env, policy, types, site.variables);
        return objectType;
      },
    });
  };
  for (const site of sites(policy)) {
    const onServer = compileExpression(environment(false, site, serverTypes), site.expression);
    const serverProblem = site.returns ? resultTypeProblem(onServer, site.returns) : onServer.problem;
    if (site.path[0] === 'variables') serverTypes.push(onServer.type ?? 'dyn');
    if (serverProblem) {
      problems.push(located(site, serverProblem, ''));
      if (site.path[0] === 'variables') typedTypes.push('dyn');
      continue;
    }
    if (!resource) continue;
    const typed = compileExpression(environment(true, site, typedTypes), site.expression);
    if (site.path[0] === 'variables') typedTypes.push(typed.type ?? 'dyn');
    const typedProblem = site.returns ? resultTypeProblem(typed, site.returns, true) : typed.problem;
    if (typedProblem) problems.push(located(site, typedProblem, ` (object is ${resource.name}, typed from its schema)`));
  }
  return problems;
}

/** `variables` with a field for each variable before `count`, typed by its expression. */
function declareVariables(env: Environment, policy: ResolvedValidatingPolicy, types: readonly string[], count: number): void {
  const fields: Record<string, string> = {};
  for (let i = 0; i < count; i++) fields[policy.variables[i]!.name] = types[i] ?? 'dyn';
  env.registerType(VARIABLES_TYPE, { fields });
  env.registerVariable('variables', VARIABLES_TYPE);
}

function located(site: Site, problem: CompileProblem, context: string): ExpressionProblem {
  const where = site.path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`))
    .join('')
    .slice(1);
  const message = problem.compiled ? `${where}: CEL compilation failed at column ${problem.offset + 1}: ${problem.message}${context}` : `${where} ${problem.message}${context}`;
  return { path: site.path, offset: problem.offset, message };
}
