/**
 * The checker of each `@ValidatingPolicy` option, with the API server's rules
 * for a ValidatingAdmissionPolicy and its binding
 * (pkg/apis/admissionregistration/validation). Match options share their
 * checkers with `@Webhook`'s (fields.ts). CEL expressions are compiled by the
 * generator, which knows the resource's schema; here only their presence.
 */
import type { ProblemPath } from '../../problems.js';
import { eachItem, expectArray, expectObjectWithKeys, expectString, oneOf, reportDuplicates, validOnly, type Checker, type Report } from '../../options/check.js';
import { checkMatchConditions, checkRule, stringWhere, WEBHOOK_FIELDS, type Fields } from '../../webhook/options/fields.js';
import { isDnsSubdomain, isQualifiedName } from '../../options/kubernetes-names.js';
import { checkLabelSelector } from '../../options/label-selector.js';
import {
  PARAMETER_NOT_FOUND_ACTIONS,
  VALIDATION_ACTIONS,
  VALIDATION_REASONS,
  type AuditAnnotation,
  type ParamKind,
  type ParamRef,
  type PolicyOptions,
  type PolicyVariable,
  type Validation,
  type ValidatingPolicyOptions,
  type ValidationAction,
} from './policy-types.js';
import { FAILURE_POLICIES, MATCH_POLICIES, type RuleOptions } from '../../webhook/options/types.js';

export const MAX_AUDIT_ANNOTATIONS = 20;
/** maxAuditAnnotationValueExpressionLength: 5 KiB. */
export const MAX_VALUE_EXPRESSION_BYTES = 5 * 1024;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
/** cel-go's reserved words, which the API server refuses as variable names. */
const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const PARAM_API_VERSION = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;

/** A non-blank string (the API server trims before it checks). */
export function expression(what: string): Checker<string> {
  return stringWhere((text) => (text.trim() === '' ? `${what} must not be empty` : undefined));
}

/** A list whose items are each checked: `check` returns the list when every item is valid. */
export function listOf<T>(item: Checker<T>, extra?: (items: readonly unknown[], path: ProblemPath, report: Report) => void): Checker<T[]> {
  return (value, path, report) =>
    validOnly(report, (report) => {
      const items = expectArray(value, path, report);
      if (!items) return undefined;
      extra?.(items, path, report);
      return eachItem(items, path, report, item);
    });
}

const checkRules: Checker<RuleOptions[]> = listOf(checkRule);

function checkVariable(value: unknown, path: ProblemPath, report: Report): PolicyVariable | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, ['name', 'expression']);
    if (!keyed) return undefined;
    const variable = keyed.object;
    report = keyed.report;
    const name = expectString(variable.name, [...path, 'name'], report);
    if (name !== undefined && (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name))) {
      report([...path, 'name'], `variable name "${name}" must be a CEL identifier (a letter or "_", then letters, digits or "_"; not a reserved word)`);
    }
    const text =
      variable.expression === undefined
        ? (report([...path, 'expression'], 'variable expression is required'), undefined)
        : expression('variable expression')(variable.expression, [...path, 'expression'], report);
    return name === undefined || text === undefined ? undefined : { name, expression: text };
  });
}

function checkValidation(value: unknown, path: ProblemPath, report: Report): Validation | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, ['expression', 'message', 'messageExpression', 'reason']);
    if (!keyed) return undefined;
    const validation = keyed.object;
    report = keyed.report;
    const at = (key: string) => [...path, key];
    const text =
      validation.expression === undefined
        ? (report(at('expression'), 'validation expression is required'), undefined)
        : expression('validation expression')(validation.expression, at('expression'), report);
    const message =
      validation.message === undefined
        ? undefined
        : stringWhere((m) => (m.trim() === '' ? 'message must not be empty when set' : /[\n\r]/.test(m.trim()) ? 'message must not contain line breaks' : undefined))(
            validation.message,
            at('message'),
            report,
          );
    const messageExpression = validation.messageExpression === undefined ? undefined : expression('messageExpression')(validation.messageExpression, at('messageExpression'), report);
    const reason = validation.reason === undefined ? undefined : oneOf(VALIDATION_REASONS)(validation.reason, at('reason'), report);
    if (text === undefined) return undefined;
    return {
      expression: text,
      ...(message !== undefined && { message }),
      ...(messageExpression !== undefined && { messageExpression }),
      ...(reason && { reason }),
    };
  });
}

function checkAuditAnnotation(value: unknown, path: ProblemPath, report: Report): AuditAnnotation | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, ['key', 'valueExpression']);
    if (!keyed) return undefined;
    const annotation = keyed.object;
    report = keyed.report;
    const key = stringWhere((k) =>
      isQualifiedName(`shaper-gen.io/${k}`) ? undefined : `audit annotation key "${k}" must be a name part of a qualified name (letters, digits, "-", "_", "."; at most 63 characters)`,
    )(annotation.key, [...path, 'key'], report);
    const valueExpression =
      annotation.valueExpression === undefined
        ? (report([...path, 'valueExpression'], 'valueExpression is required'), undefined)
        : stringWhere((v) =>
            v.trim() === ''
              ? 'valueExpression must not be empty'
              : Buffer.byteLength(v.trim()) > MAX_VALUE_EXPRESSION_BYTES
                ? `valueExpression must not exceed ${MAX_VALUE_EXPRESSION_BYTES} bytes`
                : undefined,
          )(annotation.valueExpression, [...path, 'valueExpression'], report);
    return key === undefined || valueExpression === undefined ? undefined : { key, valueExpression };
  });
}

function checkValidationActions(value: unknown, path: ProblemPath, report: Report): ValidationAction[] | undefined {
  return validOnly(report, (report) => {
    const actions = expectArray(value, path, report);
    if (!actions) return undefined;
    if (actions.length === 0) report(path, 'validationActions must list at least one of Deny, Warn, Audit');
    const checked = eachItem(actions, path, report, oneOf(VALIDATION_ACTIONS));
    reportDuplicates(actions, path, report);
    if (actions.includes('Deny') && actions.includes('Warn')) report(path, 'validationActions must not contain both Deny and Warn (the API server refuses it): pick one, with Audit if you like');
    return checked;
  });
}

function checkParamKind(value: unknown, path: ProblemPath, report: Report): ParamKind | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, ['apiVersion', 'kind']);
    if (!keyed) return undefined;
    const kind = keyed.object;
    report = keyed.report;
    const apiVersion = stringWhere((v) => (PARAM_API_VERSION.test(v) ? undefined : `paramKind apiVersion "${v}" must be "<group>/<version>" or "<version>", like "shaper.io/v1alpha1"`))(
      kind.apiVersion,
      [...path, 'apiVersion'],
      report,
    );
    const name = stringWhere((k) => (KIND.test(k) ? undefined : `paramKind kind "${k}" must be a Kind in UpperCamelCase, like "ConfigMap"`))(kind.kind, [...path, 'kind'], report);
    return apiVersion === undefined || name === undefined ? undefined : { apiVersion, kind: name };
  });
}

function checkParamRef(value: unknown, path: ProblemPath, report: Report): ParamRef | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, ['name', 'namespace', 'selector', 'parameterNotFoundAction']);
    if (!keyed) return undefined;
    const ref = keyed.object;
    report = keyed.report;
    const name = ref.name === undefined ? undefined : expectString(ref.name, [...path, 'name'], report);
    const namespace = ref.namespace === undefined ? undefined : expectString(ref.namespace, [...path, 'namespace'], report);
    const selector = ref.selector === undefined ? undefined : checkLabelSelector(ref.selector, [...path, 'selector'], report);
    if ((name === undefined) === (ref.selector === undefined)) report(path, 'paramRef must set exactly one of name and selector');
    if (ref.parameterNotFoundAction === undefined) report([...path, 'parameterNotFoundAction'], 'parameterNotFoundAction is required: Allow or Deny');
    const action = ref.parameterNotFoundAction === undefined ? undefined : oneOf(PARAMETER_NOT_FOUND_ACTIONS)(ref.parameterNotFoundAction, [...path, 'parameterNotFoundAction'], report);
    if (action === undefined) return undefined;
    return { ...(name !== undefined && { name }), ...(namespace !== undefined && { namespace }), ...(selector && { selector }), parameterNotFoundAction: action };
  });
}

/** The checkers of the options every policy has (PolicyOptions), shared by validating and mutating policies. */
export const POLICY_FIELDS: Fields<PolicyOptions> = {
  name: { check: stringWhere((name) => (isDnsSubdomain(name) ? undefined : `name "${name}" must be a lower-case DNS subdomain, like "profile-tier.shaper.io"`)) },
  rules: WEBHOOK_FIELDS.rules,
  excludeResourceRules: { check: checkRules },
  namespaceSelector: WEBHOOK_FIELDS.namespaceSelector,
  objectSelector: WEBHOOK_FIELDS.objectSelector,
  matchPolicy: { check: oneOf(MATCH_POLICIES) },
  matchConditions: { check: checkMatchConditions },
  variables: {
    check: listOf(checkVariable, (items, path, report) => {
      const names = items.map((item) => (item as { name?: unknown } | null)?.name).filter((name) => typeof name === 'string');
      reportDuplicates(names, path, (at, message) => report(at, `variable names must be unique: ${message}`));
    }),
  },
  failurePolicy: { check: oneOf(FAILURE_POLICIES) },
  paramKind: { check: checkParamKind },
  paramRef: { check: checkParamRef },
};

export const VALIDATING_POLICY_FIELDS: Fields<ValidatingPolicyOptions> = {
  name: POLICY_FIELDS.name,
  rules: POLICY_FIELDS.rules,
  excludeResourceRules: POLICY_FIELDS.excludeResourceRules,
  namespaceSelector: POLICY_FIELDS.namespaceSelector,
  objectSelector: POLICY_FIELDS.objectSelector,
  matchPolicy: POLICY_FIELDS.matchPolicy,
  matchConditions: POLICY_FIELDS.matchConditions,
  variables: POLICY_FIELDS.variables,
  validations: { check: listOf(checkValidation) },
  auditAnnotations: {
    check: listOf(checkAuditAnnotation, (items, path, report) => {
      if (items.length > MAX_AUDIT_ANNOTATIONS) report(path, `at most ${MAX_AUDIT_ANNOTATIONS} auditAnnotations are allowed, got ${items.length}`);
      const keys = items.map((item) => (item as { key?: unknown } | null)?.key);
      reportDuplicates(keys, path, (at, message) => report(at, `audit annotation keys must be unique: ${message}`));
    }),
  },
  failurePolicy: POLICY_FIELDS.failurePolicy,
  paramKind: POLICY_FIELDS.paramKind,
  paramRef: POLICY_FIELDS.paramRef,
  validationActions: { check: checkValidationActions },
};

export const VALIDATING_POLICY_OPTION_NAMES = Object.keys(VALIDATING_POLICY_FIELDS) as (keyof ValidatingPolicyOptions)[];
