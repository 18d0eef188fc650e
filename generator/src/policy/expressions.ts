/**
 * Every CEL expression of a policy, validating or mutating, compiled twice: once as the API
 * server compiles it when the policy is stored (object and params dyn, exact
 * result types), and once with `object` typed from the resource's schema, so
 * that a misspelt field or a wrong type is an error here rather than a
 * runtime error in the cluster. Variables are declared in order, each typed
 * by its expression, as the API server's composition does.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { PATCH_FIELD, type ProblemPath, type ResolvedMutatingPolicy, type ResolvedPolicy, type ResolvedValidatingPolicy } from 'shaper-gen/internal/generator';
import { compileExpression, resultTypeProblem, type CompileProblem } from '../cel/compile.js';
import { admissionEnvironment } from '../cel/environment.js';
import { rewriteMessageConstruction } from '../cel/message-construction.js';
import { declareMutationLibrary, JSON_PATCH_TYPE, OBJECT_TYPE } from '../cel/mutation-library.js';
import { declareSchemaTypes, type StructuralSchema } from '../cel/schema-types.js';
import type { ExpressionKind } from '../cel/engine/index.js';
import { engineVerdict } from './engine-verdict.js';

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
  /** The policy field, as the CEL engine names it. */
  readonly kind: ExpressionKind;
  readonly expression: string;
  /** Result types the API server accepts; undefined: any (a variable). */
  readonly returns?: readonly string[];
  readonly authorizer: boolean;
  /** Variables visible: those before this index. */
  readonly variables: number;
  /** A mutation: the patch types and message construction are declared (the API server's HasPatchTypes). */
  readonly patch?: boolean;
}

/** Any policy: validating or mutating. */
export type AnyResolvedPolicy = ResolvedValidatingPolicy | ResolvedMutatingPolicy;

export function isMutatingPolicy(policy: AnyResolvedPolicy): policy is ResolvedMutatingPolicy {
  return 'mutations' in policy;
}

const VARIABLES_TYPE = 'kubernetes.variables';

/** The expressions every policy has: matchConditions (no variables) and variables (each sees those before it). */
function sharedSites(policy: ResolvedPolicy): Site[] {
  return [
    ...policy.matchConditions.map((c, i) => ({
      path: ['matchConditions', i, 'expression'],
      kind: 'matchCondition' as const,
      expression: c.expression,
      returns: ['bool'],
      authorizer: true,
      variables: 0,
    })),
    ...policy.variables.map((v, i) => ({ path: ['variables', i, 'expression'], kind: 'variable' as const, expression: v.expression, authorizer: true, variables: i })),
  ];
}

/** The result type the API server wants of a mutation's expression (patch.ApplyConfigurationCondition, JSONPatchCondition). */
export const MUTATION_RESULT_TYPES = { ApplyConfiguration: OBJECT_TYPE, JSONPatch: `list<${JSON_PATCH_TYPE}>` } as const;

function sites(policy: AnyResolvedPolicy): Site[] {
  const all = policy.variables.length;
  if (isMutatingPolicy(policy)) {
    return [
      ...sharedSites(policy),
      ...policy.mutations.map((m, i) => {
        const field = PATCH_FIELD[m.patchType];
        const kind = m.patchType === 'JSONPatch' ? ('jsonPatch' as const) : ('applyConfiguration' as const);
        return {
          path: ['mutations', i, field, 'expression'],
          kind,
          expression: m[field]!.expression,
          returns: [MUTATION_RESULT_TYPES[m.patchType]],
          authorizer: true,
          variables: all,
          patch: true,
        };
      }),
    ];
  }
  return [
    ...sharedSites(policy),
    ...policy.validations.flatMap((v, i) => [
      { path: ['validations', i, 'expression'], kind: 'validation' as const, expression: v.expression, returns: ['bool'], authorizer: true, variables: all },
      ...(v.messageExpression === undefined
        ? []
        : [{ path: ['validations', i, 'messageExpression'], kind: 'messageExpression' as const, expression: v.messageExpression, returns: ['string'], authorizer: false, variables: all }]),
    ]),
    ...policy.auditAnnotations.map((a, i) => ({
      path: ['auditAnnotations', i, 'valueExpression'],
      kind: 'auditAnnotation' as const,
      expression: a.valueExpression,
      returns: ['string', 'null'],
      authorizer: true,
      variables: all,
    })),
  ];
}

/** Every expression of the policy with where it is written (matchConditions, variables, then the kind's own). */
export function policyExpressionSites(policy: AnyResolvedPolicy): { readonly path: ProblemPath; readonly expression: string }[] {
  return sites(policy).map(({ path, expression }) => ({ path, expression }));
}

/** `celJsOnly`: without the API server's verdict (the differential measures what cel-js alone answers). */
export function checkPolicyExpressions(policy: AnyResolvedPolicy, resource: TypedResource | undefined, { celJsOnly = false } = {}): ExpressionProblem[] {
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
        const objectType = schema && declareSchemaTypes(env, OBJECT_TYPE, schema);
        if (site.patch) declareMutationLibrary(env, { typeNames: rewriteMessageConstruction(site.expression).typeNames, schemaTyped: schema !== undefined }, false);
        declareVariables(env, policy, types, site.variables);
        return objectType;
      },
    });
  };
  for (const site of sites(policy)) {
    const onServer = compileExpression(environment(false, site, serverTypes), site.expression, site.patch);
    const celJsProblem = site.returns ? resultTypeProblem(onServer, site.returns) : onServer.problem;
    if (site.path[0] === 'variables') serverTypes.push(onServer.type ?? 'dyn');
    // The API server's own compiler (the CEL engine) decides; cel-js words the refusals both make. Its answers are
    // cached per engine build, so the engine is loaded only for an expression not judged before.
    const verdict = celJsOnly ? celJsProblem : engineVerdict({ hasParams: params, variables: policy.variables.slice(0, site.variables) }, site.kind, site.expression);
    const serverProblem = verdict && (celJsProblem ?? verdict);
    if (serverProblem || celJsProblem) {
      if (serverProblem) problems.push(located(site, serverProblem, ''));
      if (site.path[0] === 'variables') typedTypes.push('dyn');
      continue;
    }
    if (!resource) continue;
    const typed = compileExpression(environment(true, site, typedTypes), site.expression, site.patch);
    if (site.path[0] === 'variables') typedTypes.push(typed.type ?? 'dyn');
    const typedProblem = site.returns ? resultTypeProblem(typed, site.returns, true) : typed.problem;
    if (typedProblem) problems.push(located(site, typedProblem, ` (object is ${resource.name}, typed from its schema)`));
  }
  return problems;
}

/** `variables` with a field for each variable before `count`, typed by its expression. */
function declareVariables(env: Environment, policy: ResolvedPolicy, types: readonly string[], count: number): void {
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
