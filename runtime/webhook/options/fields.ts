/**
 * The checker of each `@Webhook` option: one entry per option, each returning
 * the option's value typed when it is valid. The table's type requires an entry
 * for every option of WebhookOptions, so an option cannot go unchecked.
 */
import { checkCacheOption } from '../../cache/cached-resource.js';
import type { ProblemPath } from '../../problems.js';
import { checkRbacRules } from '../rbac-options.js';
import { describe, eachItem, expectArray, expectObjectWithKeys, expectString, oneOf, reportDuplicates, validOnly, type Checker, type Report } from '../../options/check.js';
import { RULE_SPELLINGS } from '../../options/api-spellings.js';
import { isApiGroupOrWildcard, isDnsLabel, isQualifiedName, isResourceReference, isWebhookName, webhookPathProblem } from '../../options/kubernetes-names.js';
import { checkLabelSelector } from '../../options/label-selector.js';
import {
  ADMISSION_REVIEW_VERSIONS,
  FAILURE_POLICIES,
  MATCH_POLICIES,
  OPERATIONS,
  REINVOCATION_POLICIES,
  SCOPES,
  SIDE_EFFECTS,
  type MatchCondition,
  type RuleOptions,
  type WebhookOptions,
} from './types.js';

export const MAX_MATCH_CONDITIONS = 64;
const MAX_CONFIGURATION_NAME = 40;
const API_VERSION = /^[a-z0-9]+$/;

interface Field<T> {
  readonly required?: true;
  readonly check: Checker<T>;
}

/** A checker for every key of T. */
export type Fields<T> = { readonly [K in keyof T]-?: Field<NonNullable<T[K]>> };

/** The options present in `raw`, each checked; required ones reported when missing. */
export function checkFields<T>(raw: Record<string, unknown>, fields: Fields<T>, report: Report): Partial<T> {
  const checked: Partial<T> = {};
  for (const key of Object.keys(fields) as (keyof T & string)[]) {
    const field = fields[key];
    const value = raw[key];
    if (value === undefined) {
      if (field.required) report([key], `option "${key}" is required`);
      continue;
    }
    const result = field.check(value, [key], report);
    if (result !== undefined) checked[key] = result;
  }
  return checked;
}

/** A string that `problem` has nothing to say about. */
export function stringWhere(problem: (value: string) => string | undefined): Checker<string> {
  return (value, path, report) => {
    const text = expectString(value, path, report);
    const message = text === undefined ? undefined : problem(text);
    if (message === undefined) return text;
    report(path, message);
    return undefined;
  };
}

export const WEBHOOK_FIELDS: Fields<WebhookOptions> = {
  path: { required: true, check: stringWhere(webhookPathProblem) },
  mutating: {
    required: true,
    check: (value, path, report) => (typeof value === 'boolean' ? value : (report(path, `mutating must be true or false, got ${describe(value)}`), undefined)),
  },
  name: {
    check: stringWhere((name) => (isWebhookName(name) ? undefined : `name "${name}" must be a lower-case DNS subdomain with at least three segments, like "validate-profile.shaper.io"`)),
  },
  configuration: {
    check: stringWhere((name) =>
      isDnsLabel(name, MAX_CONFIGURATION_NAME) ? undefined : `configuration "${name}" must be a lower-case DNS label of at most ${MAX_CONFIGURATION_NAME} characters`,
    ),
  },
  rules: {
    required: true,
    check: (value, path, report) =>
      validOnly(report, (report) => {
        const rules = expectArray(value, path, report);
        if (rules?.length === 0) report(path, 'rules must list at least one rule');
        return rules && eachItem(rules, path, report, checkRule);
      }),
  },
  failurePolicy: { check: oneOf(FAILURE_POLICIES) },
  sideEffects: {
    check: (value, path, report) => {
      if (value !== 'Some' && value !== 'Unknown') return oneOf(SIDE_EFFECTS)(value, path, report);
      report(path, `sideEffects "${value}" is not allowed by admissionregistration.k8s.io/v1; use None, or NoneOnDryRun and honour request.dryRun`);
      return undefined;
    },
  },
  timeoutSeconds: {
    check: (value, path, report) => {
      if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 30) return value;
      report(path, `timeoutSeconds must be a whole number from 1 to 30, got ${describe(value)}`);
      return undefined;
    },
  },
  matchPolicy: { check: oneOf(MATCH_POLICIES) },
  reinvocationPolicy: { check: oneOf(REINVOCATION_POLICIES) },
  admissionReviewVersions: {
    check: (value, path, report) =>
      validOnly(report, (report) => {
        const versions = expectArray(value, path, report);
        if (!versions) return undefined;
        if (versions.length === 0) report(path, 'admissionReviewVersions must list at least one version');
        const checked = eachItem(versions, path, report, oneOf(ADMISSION_REVIEW_VERSIONS));
        reportDuplicates(versions, path, report);
        return checked;
      }),
  },
  namespaceSelector: { check: checkLabelSelector },
  objectSelector: { check: checkLabelSelector },
  matchConditions: { check: checkMatchConditions },
  rbac: { check: checkRbacRules },
  cache: { check: checkCacheOption },
};

/** The option names, in declaration order: exported for the generator's messages and docs. */
export const WEBHOOK_OPTION_NAMES = Object.keys(WEBHOOK_FIELDS) as (keyof WebhookOptions)[];

/** Options for the server and the chart's RBAC, never written into a webhook configuration. */
export const SERVER_ONLY_OPTION_NAMES = ['rbac', 'cache'] as const satisfies readonly (keyof WebhookOptions)[];

const RULE_KEYS = ['groups', 'versions', 'resources', 'operations', 'scope'];

export function checkRule(value: unknown, path: ProblemPath, report: Report): RuleOptions | undefined {
  return validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, path, report, RULE_KEYS, RULE_SPELLINGS);
    if (!keyed) return undefined;
    const rule = keyed.object;
    report = keyed.report;
    /** A required, non-empty list of distinct strings, each checked by `item`. */
    const list = <T extends string>(key: string, item: (text: string, at: ProblemPath) => T | undefined): T[] | undefined => {
      const at = [...path, key];
      if (rule[key] === undefined) return (report(at, `rule option "${key}" is required`), undefined);
      const items = expectArray(rule[key], at, report);
      if (!items) return undefined;
      if (items.length === 0) return (report(at, `${key} must not be empty`), undefined);
      const checked = eachItem(items, at, report, (entry, entryAt, report) => {
        const text = expectString(entry, entryAt, report);
        return text === undefined ? undefined : item(text, entryAt);
      });
      reportDuplicates(items, at, report);
      if (key !== 'resources' && items.includes('*') && items.length > 1) report(at, `"*" in ${key} must be the only entry`);
      return checked;
    };
    const problemOr = (text: string, at: ProblemPath, problem: string | false) => (problem ? (report(at, problem), undefined) : text);
    const groups = list('groups', (group, at) => problemOr(group, at, !isApiGroupOrWildcard(group) && `API group "${group}" must be "", "*" or a DNS subdomain`));
    const versions = list('versions', (version, at) => problemOr(version, at, version !== '*' && !API_VERSION.test(version) && `API version "${version}" must be "*" or like "v1", "v1alpha1"`));
    const resources = list('resources', (resource, at) =>
      problemOr(resource, at, !isResourceReference(resource) && `resource "${resource}" must be "<resource>" or "<resource>/<subresource>" (lower-case, "*" allowed)`),
    );
    if (Array.isArray(rule.resources) && rule.resources.length > 1) {
      checkResourceWildcards(
        rule.resources.filter((r): r is string => typeof r === 'string'),
        [...path, 'resources'],
        report,
      );
    }
    const operations = list('operations', (operation, at) => oneOf(OPERATIONS)(operation, at, report));
    const scope = rule.scope === undefined ? undefined : oneOf(SCOPES)(rule.scope, [...path, 'scope'], report);
    if (!groups || !versions || !resources || !operations) return undefined;
    return { groups, versions, resources, operations, ...(scope && { scope }) };
  });
}

/** The API server's wildcard rules for a rule's resources (admissionregistration validation, validateResources). */
function checkResourceWildcards(resources: readonly string[], at: ProblemPath, report: Report): void {
  if (resources.includes('*/*')) return report(at, 'resources containing "*/*" must not list other resources');
  if (resources.includes('*') && resources.some((r) => r !== '*' && !r.includes('/'))) {
    report(at, 'resources containing "*" must not list other resources without a subresource');
  }
  const wildcardSubresources = new Set<string>();
  const wildcardResources = new Set<string>();
  resources.forEach((entry, i) => {
    const [resource, subresource] = entry.split('/', 2) as [string, string | undefined];
    if (subresource === undefined) return;
    if (wildcardSubresources.has(resource)) report([...at, i], `"${entry}" is already covered by "${resource}/*"`);
    if (wildcardResources.has(subresource)) report([...at, i], `"${entry}" is already covered by "*/${subresource}"`);
    if (subresource === '*') wildcardSubresources.add(resource);
    if (resource === '*') wildcardResources.add(subresource);
  });
}

export function checkMatchConditions(value: unknown, path: ProblemPath, report: Report): MatchCondition[] | undefined {
  return validOnly(report, (report) => {
    const conditions = expectArray(value, path, report);
    if (!conditions) return undefined;
    if (conditions.length > MAX_MATCH_CONDITIONS) report(path, `at most ${MAX_MATCH_CONDITIONS} matchConditions are allowed, got ${conditions.length}`);
    const seen = new Set<string>();
    return eachItem(conditions, path, report, (entry, at, report) => {
      const keyed = expectObjectWithKeys(entry, at, report, ['name', 'expression']);
      if (!keyed) return undefined;
      const condition = keyed.object;
      report = keyed.report;
      const name = expectString(condition.name, [...at, 'name'], report);
      if (name !== undefined) {
        if (!isQualifiedName(name)) {
          report([...at, 'name'], `matchCondition name "${name}" must be a qualified name (letters, digits, "-", "_", "."; at most 63 characters, optional DNS prefix)`);
        } else if (seen.has(name)) {
          report([...at, 'name'], `duplicate matchCondition name "${name}"`);
        }
        seen.add(name);
      }
      const expression = expectString(condition.expression, [...at, 'expression'], report);
      if (expression?.trim() === '') report([...at, 'expression'], 'matchCondition expression must not be empty');
      return name === undefined || expression === undefined ? undefined : { name, expression };
    });
  });
}
