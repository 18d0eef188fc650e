/**
 * `@ValidatingPolicy` options to a ResolvedValidatingPolicy: every option
 * checked (policy-fields.ts), the checks between options, then the defaults
 * the API server would apply. Used by the decorator at runtime and by the
 * generator on statically evaluated arguments, as resolve.ts is for webhooks.
 */
import { didYouMean } from '../did-you-mean.js';
import type { Problem } from '../problems.js';
import { isPlainObject, type Report } from './check.js';
import { isDnsSubdomain, MAX_DNS_SUBDOMAIN } from './kubernetes-names.js';
import { checkValidatingPolicyFields, VALIDATING_POLICY_OPTION_NAMES } from './policy-fields.js';
import type { ResolvedValidatingPolicy, ValidatingPolicyOptions } from './policy-types.js';
import { nameDomain, resolveRule } from './resolve.js';

/** `ProfileTierPolicy` → `profile-tier-policy.<first rule group with a dot, else shaper-gen.io>`. */
export function defaultPolicyName(className: string, rules: readonly { readonly groups: readonly string[] }[] = []): string {
  const kebab = className
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
  return `${kebab}.${nameDomain(rules)}`;
}

/** Validates `@ValidatingPolicy` options of class `className` and applies defaults; every problem is reported. */
export function resolveValidatingPolicyOptions(raw: unknown, className: string): { policy?: ResolvedValidatingPolicy; problems: Problem[] } {
  const problems: Problem[] = [];
  const report: Report = (path, message) => problems.push({ path, message });
  if (!isPlainObject(raw)) {
    report([], '@ValidatingPolicy expects an options object');
    return { problems };
  }
  const known: readonly string[] = VALIDATING_POLICY_OPTION_NAMES;
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) report([key], `unknown option "${key}"; ${didYouMean(key, known)}known options: ${known.join(', ')}`);
  }
  const options = checkValidatingPolicyFields(raw, report);
  checkBetweenOptions(raw, options, className, report);
  const { rules } = options;
  if (problems.length > 0 || rules === undefined) return { problems };
  return { policy: withDefaults({ ...options, rules }, className), problems };
}

function checkBetweenOptions(raw: Record<string, unknown>, options: Partial<ValidatingPolicyOptions>, className: string, report: Report): void {
  const empty = (value: unknown) => value === undefined || (Array.isArray(value) && value.length === 0);
  if (empty(raw.validations) && empty(raw.auditAnnotations)) {
    report(['validations'], 'a policy needs at least one validation or audit annotation: add `validations: [{ expression, message }]`');
  }
  if (raw.paramRef !== undefined && raw.paramKind === undefined) report(['paramRef'], 'paramRef needs paramKind: the kind of the parameter object');
  if (raw.paramKind !== undefined && raw.paramRef === undefined)
    report(['paramKind'], 'paramKind needs paramRef: which object the binding passes as `params` (name or selector, and parameterNotFoundAction)');
  if (raw.name === undefined && options.rules) {
    const name = defaultPolicyName(className, options.rules);
    if (name.length > MAX_DNS_SUBDOMAIN || !isDnsSubdomain(name))
      report(['rules'], `the default policy name "${name}" derived from class ${className} is not a valid DNS subdomain of at most ${MAX_DNS_SUBDOMAIN} characters: set \`name\``);
  }
}

function withDefaults(options: ValidatingPolicyOptions, className: string): ResolvedValidatingPolicy {
  return {
    name: options.name ?? defaultPolicyName(className, options.rules),
    rules: options.rules.map(resolveRule),
    excludeResourceRules: (options.excludeResourceRules ?? []).map(resolveRule),
    namespaceSelector: options.namespaceSelector,
    objectSelector: options.objectSelector,
    matchPolicy: options.matchPolicy ?? 'Equivalent',
    matchConditions: options.matchConditions ?? [],
    variables: options.variables ?? [],
    validations: options.validations ?? [],
    auditAnnotations: options.auditAnnotations ?? [],
    failurePolicy: options.failurePolicy ?? 'Fail',
    paramKind: options.paramKind,
    paramRef: options.paramRef,
    validationActions: [...(options.validationActions ?? ['Deny'])],
  };
}
