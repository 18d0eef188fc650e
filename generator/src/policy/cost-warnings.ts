/**
 * Where a policy's CEL can exceed the API server's runtime cost limits. The
 * API server checks no policy's cost when it is created; it stops an
 * expression at run time past 1,000,000 per call, a binding's validations past
 * 10,000,000 together, its matchConditions past 2,500,000. Each expression's
 * static estimate comes from the API server's own estimator (the CEL engine's
 * estimateTyped), with `object` typed from the matched resource's schema where
 * the policy matches one: its maxItems, maxProperties and maxLength bound the
 * estimate, as they bound a CRD rule's. A messageExpression is left out: one
 * that runs out only loses its message (the decision stands), and the
 * estimator counts any `string(x)` in it as unbounded. A warning does not stop
 * generation.
 */
import type { ProblemPath } from 'shaper-gen/internal/generator';
import { estimateTyped, MATCH_CONDITIONS_BUDGET, PER_CALL_LIMIT, RUNTIME_BUDGET, type ExpressionKind } from '../cel/engine/index.js';
import { isMutatingPolicy, policyExpressionSites, type AnyResolvedPolicy, type TypedResource } from './expressions.js';

export interface CostWarning {
  readonly path: ProblemPath;
  readonly message: string;
}

const UNBOUNDED = 2n ** 64n - 1n;

const words = (cost: bigint) => (cost >= UNBOUNDED ? 'unbounded' : cost.toLocaleString('en-US'));

/** The policy field an expression is in, as the engine names it. */
function kindOf(path: ProblemPath): ExpressionKind {
  const [field, , , leaf] = path;
  if (field === 'matchConditions') return 'matchCondition';
  if (field === 'variables') return 'variable';
  if (field === 'auditAnnotations') return 'auditAnnotation';
  if (field === 'mutations') return leaf === 'expression' && path[2] === 'jsonPatch' ? 'jsonPatch' : 'applyConfiguration';
  return path[2] === 'messageExpression' ? 'messageExpression' : 'validation';
}

/** What the API server does when the expression runs out: the failure policy decides. */
function consequence(policy: AnyResolvedPolicy): string {
  return policy.failurePolicy === 'Fail' ? 'failurePolicy Fail denies the request' : 'failurePolicy Ignore lets the request through unchecked';
}

function bound(resource: TypedResource | undefined): string {
  return resource
    ? `bound the lists, maps and strings it reads in ${resource.name}'s schema (maxItems, maxProperties, maxLength), or read fewer of them`
    : 'object is untyped here (the policy does not match exactly one resource), so every list and string counts as unbounded: match one resource, or read fewer lists';
}

export function policyCostWarnings(policy: AnyResolvedPolicy, resource: TypedResource | undefined): CostWarning[] {
  const shape = { hasParams: policy.paramKind !== undefined, variables: policy.variables.map(({ name, expression }) => ({ name, expression })) };
  const warnings: CostWarning[] = [];
  const estimated = policyExpressionSites(policy).flatMap((site) => {
    const kind = kindOf(site.path);
    if (kind === 'messageExpression') return [];
    const answer = estimateTyped({ policy: shape, kind, expression: site.expression, stored: true, ...(resource && { objectSchema: resource.schema }) });
    return [{ ...site, kind, max: answer.cost ? BigInt(answer.cost.max) : 0n }];
  });
  for (const site of estimated) {
    if (site.max <= PER_CALL_LIMIT) continue;
    warnings.push({
      path: site.path,
      message:
        `warning: the API server's estimated cost of this expression is ${words(site.max)}, over the ${words(PER_CALL_LIMIT)} it lets one expression use at run time: ` +
        `on a large enough object it stops with 'operation cancelled: actual cost limit exceeded' and ${consequence(policy)}; ${bound(resource)}`,
    });
  }
  const sum = (kind: ExpressionKind) => estimated.filter((site) => site.kind === kind).reduce((total, site) => (total + site.max > UNBOUNDED ? UNBOUNDED : total + site.max), 0n);
  const within = (kind: ExpressionKind) => estimated.every((site) => site.kind !== kind || site.max <= PER_CALL_LIMIT);
  const shared = [
    { kind: 'validation', field: isMutatingPolicy(policy) ? undefined : 'validations', limit: RUNTIME_BUDGET, what: "the validations' estimated costs add up to", per: 'binding' },
    { kind: 'matchCondition', field: 'matchConditions', limit: MATCH_CONDITIONS_BUDGET, what: "the matchConditions' estimated costs add up to", per: "binding's matchConditions" },
  ] as const;
  for (const { kind, field, limit, what, per } of shared) {
    const total = sum(kind);
    if (field === undefined || total <= limit || !within(kind)) continue;
    warnings.push({
      path: [field],
      message:
        `warning: ${what} ${words(total)}, over the ${words(limit)} the API server allows per ${per} at run time: on a large enough object it stops with ` +
        `'validation failed due to running out of cost budget, no further validation rules will be run' and ${consequence(policy)}; ${bound(resource)}`,
    });
  }
  return warnings;
}
