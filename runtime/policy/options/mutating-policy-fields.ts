/**
 * The checker of each `@MutatingPolicy` option, with the API server's rules
 * for a MutatingAdmissionPolicy (pkg/apis/admissionregistration/validation:
 * validateMutatingAdmissionPolicySpec, validateMutation). The options every
 * policy has share their checkers (policy-fields.ts); CEL is compiled by the
 * generator, here only its presence.
 */
import type { ProblemPath } from '../../problems.js';
import { expectObjectWithKeys, oneOf, validOnly, type Checker, type Report } from '../../options/check.js';
import type { Fields } from '../../webhook/options/fields.js';
import { MUTATING_POLICY_OPERATIONS, PATCH_TYPES, type MutatingPolicyOptions, type Mutation, type MutationExpression, type PatchType } from './mutating-policy-types.js';
import { expression, listOf, POLICY_FIELDS } from './policy-fields.js';
import type { RuleOptions } from '../../webhook/options/types.js';
import { REINVOCATION_POLICIES } from '../../webhook/options/types.js';

/** The field of a mutation that holds the expression of each patch type. */
export const PATCH_FIELD: Readonly<Record<PatchType, 'applyConfiguration' | 'jsonPatch'>> = { ApplyConfiguration: 'applyConfiguration', JSONPatch: 'jsonPatch' };

/** Rules as every policy checks them, and operations the API server lets a mutating policy match. */
const checkMutatingRules: Checker<readonly RuleOptions[]> = (value, path, report) =>
  validOnly(report, (report) => {
    const rules = POLICY_FIELDS.rules.check(value, path, report);
    rules?.forEach((rule, i) =>
      rule.operations.forEach((operation, j) => {
        if (!(MUTATING_POLICY_OPERATIONS as readonly string[]).includes(operation))
          report([...path, i, 'operations', j], `a mutating policy cannot match ${operation}: operations must be among ${MUTATING_POLICY_OPERATIONS.join(', ')} (there is no object to change)`);
      }),
    );
    return rules;
  });

function checkMutationExpression(value: unknown, path: ProblemPath, report: Report): MutationExpression | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, ['expression']);
    if (!keyed) return undefined;
    const holder = keyed.object;
    report = keyed.report;
    if (holder.expression === undefined) return (report([...path, 'expression'], 'expression is required'), undefined);
    const text = expression('mutation expression')(holder.expression, [...path, 'expression'], report);
    return text === undefined ? undefined : { expression: text };
  });
}

function checkMutation(value: unknown, path: ProblemPath, report: Report): Mutation | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, ['patchType', 'applyConfiguration', 'jsonPatch']);
    if (!keyed) return undefined;
    const mutation = keyed.object;
    report = keyed.report;
    if (mutation.patchType === undefined) return (report([...path, 'patchType'], 'patchType is required: ApplyConfiguration or JSONPatch'), undefined);
    const patchType = oneOf(PATCH_TYPES)(mutation.patchType, [...path, 'patchType'], report);
    if (patchType === undefined) return undefined;
    const field = PATCH_FIELD[patchType];
    const other = field === 'jsonPatch' ? 'applyConfiguration' : 'jsonPatch';
    if (mutation[other] !== undefined) report([...path, other], `${other} must not be specified when patchType is ${patchType}: set ${field}`);
    if (mutation[field] === undefined) return (report([...path, field], `${field} must be specified when patchType is ${patchType}: ${field}: { expression }`), undefined);
    const holder = checkMutationExpression(mutation[field], [...path, field], report);
    return holder && { patchType, [field]: holder };
  });
}

export const MUTATING_POLICY_FIELDS: Fields<MutatingPolicyOptions> = {
  name: POLICY_FIELDS.name,
  rules: { required: true, check: checkMutatingRules },
  excludeResourceRules: POLICY_FIELDS.excludeResourceRules,
  namespaceSelector: POLICY_FIELDS.namespaceSelector,
  objectSelector: POLICY_FIELDS.objectSelector,
  matchPolicy: POLICY_FIELDS.matchPolicy,
  matchConditions: POLICY_FIELDS.matchConditions,
  variables: POLICY_FIELDS.variables,
  mutations: {
    required: true,
    check: listOf(checkMutation, (items, path, report) => {
      if (items.length === 0) report(path, 'mutations must contain at least one item');
    }),
  },
  failurePolicy: POLICY_FIELDS.failurePolicy,
  paramKind: POLICY_FIELDS.paramKind,
  paramRef: POLICY_FIELDS.paramRef,
  reinvocationPolicy: { check: oneOf(REINVOCATION_POLICIES) },
};

export const MUTATING_POLICY_OPTION_NAMES = Object.keys(MUTATING_POLICY_FIELDS) as (keyof MutatingPolicyOptions)[];
