/**
 * `@ValidatingPolicy` and `@MutatingPolicy` options to their resolved form: every option
 * checked (policy-fields.ts), the checks between options, then the defaults
 * the API server would apply. Used by the decorator at runtime and by the
 * generator on statically evaluated arguments, as resolve.ts is for webhooks.
 */
import type { Problem } from '../../problems.js';
import { POLICY_SPELLINGS } from '../../options/api-spellings.js';
import { checkKeys, isPlainObject, type Report } from '../../options/check.js';
import { isDnsSubdomain, MAX_DNS_SUBDOMAIN } from '../../options/kubernetes-names.js';
import { checkFields, type Fields } from '../../webhook/options/fields.js';
import { MUTATING_POLICY_FIELDS } from './mutating-policy-fields.js';
import type { MutatingPolicyOptions, ResolvedMutatingPolicy } from './mutating-policy-types.js';
import { VALIDATING_POLICY_FIELDS } from './policy-fields.js';
import type { PolicyOptions, ResolvedPolicy, ResolvedValidatingPolicy, ValidatingPolicyOptions } from './policy-types.js';
import { optionKeys, ownDomain, resolveRule } from '../../webhook/options/resolve.js';

/**
 * `ProfileTierPolicy` → `profile-tier-policy.<the first rule group that is the user's domain>`, or
 * `profile-tier-policy` alone when the rules name only core and Kubernetes' groups: a policy's name
 * needs no domain (unlike a webhook's), and one the user does not own (shaper-gen.io, networking.k8s.io)
 * would only claim it.
 */
export function defaultPolicyName(className: string, rules: readonly { readonly groups: readonly string[] }[] = []): string {
  const kebab = className
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
  const domain = ownDomain(rules);
  return domain === undefined ? kebab : `${kebab}.${domain}`;
}

/** What differs between the policy kinds: the decorator's name, its option table, its own checks and defaults. */
interface PolicyKind<O extends PolicyOptions, R extends ResolvedPolicy> {
  readonly decorator: string;
  readonly fields: Fields<O>;
  readonly check: (raw: Record<string, unknown>, options: Partial<O>, report: Report) => void;
  readonly defaults: (options: O) => Omit<R, keyof ResolvedPolicy>;
}

/** Validates a policy decorator's options of class `className` and applies defaults; every problem is reported. */
function resolvePolicyOptions<O extends PolicyOptions, R extends ResolvedPolicy>(kind: PolicyKind<O, R>, raw: unknown, className: string): { policy?: R; problems: Problem[] } {
  const problems: Problem[] = [];
  const report: Report = (path, message) => problems.push({ path, message });
  if (!isPlainObject(raw)) {
    report([], `${kind.decorator} expects an options object`);
    return { problems };
  }
  const checked = checkKeys(raw, [], report, optionKeys(Object.keys(kind.fields), POLICY_SPELLINGS));
  const options = checkFields(raw, kind.fields, checked);
  checkSharedOptions(raw, options, className, checked);
  kind.check(raw, options, checked);
  const { rules } = options;
  if (problems.length > 0 || rules === undefined) return { problems };
  const complete = { ...options, rules } as O;
  return { policy: { ...sharedDefaults(complete, className), ...kind.defaults(complete) } as R, problems };
}

const VALIDATING: PolicyKind<ValidatingPolicyOptions, ResolvedValidatingPolicy> = {
  decorator: '@ValidatingPolicy',
  fields: VALIDATING_POLICY_FIELDS,
  check(raw, _options, report) {
    const empty = (value: unknown) => value === undefined || (Array.isArray(value) && value.length === 0);
    if (empty(raw.validations) && empty(raw.auditAnnotations)) {
      report(['validations'], 'a policy needs at least one validation or audit annotation: add `validations: [{ expression, message }]`');
    }
  },
  defaults: (options) => ({
    validations: options.validations ?? [],
    auditAnnotations: options.auditAnnotations ?? [],
    validationActions: [...(options.validationActions ?? ['Deny'])],
  }),
};

const MUTATING: PolicyKind<MutatingPolicyOptions, ResolvedMutatingPolicy> = {
  decorator: '@MutatingPolicy',
  fields: MUTATING_POLICY_FIELDS,
  check: () => undefined,
  defaults: (options) => ({ mutations: options.mutations, reinvocationPolicy: options.reinvocationPolicy ?? 'Never' }),
};

/** Validates `@ValidatingPolicy` options of class `className` and applies defaults; every problem is reported. */
export function resolveValidatingPolicyOptions(raw: unknown, className: string): { policy?: ResolvedValidatingPolicy; problems: Problem[] } {
  return resolvePolicyOptions(VALIDATING, raw, className);
}

/** Validates `@MutatingPolicy` options of class `className` and applies defaults; every problem is reported. */
export function resolveMutatingPolicyOptions(raw: unknown, className: string): { policy?: ResolvedMutatingPolicy; problems: Problem[] } {
  return resolvePolicyOptions(MUTATING, raw, className);
}

function checkSharedOptions(raw: Record<string, unknown>, options: Partial<PolicyOptions>, className: string, report: Report): void {
  if (raw.paramRef !== undefined && raw.paramKind === undefined) report(['paramRef'], 'paramRef needs paramKind: the kind of the parameter object');
  if (raw.paramKind !== undefined && raw.paramRef === undefined)
    report(['paramKind'], 'paramKind needs paramRef: which object the binding passes as `params` (name or selector, and parameterNotFoundAction)');
  if (raw.name === undefined && options.rules) {
    const name = defaultPolicyName(className, options.rules);
    if (name.length > MAX_DNS_SUBDOMAIN || !isDnsSubdomain(name))
      report(['rules'], `the default policy name "${name}" derived from class ${className} is not a valid DNS subdomain of at most ${MAX_DNS_SUBDOMAIN} characters: set \`name\``);
  }
}

function sharedDefaults(options: PolicyOptions, className: string): ResolvedPolicy {
  return {
    name: options.name ?? defaultPolicyName(className, options.rules),
    rules: options.rules.map(resolveRule),
    excludeResourceRules: (options.excludeResourceRules ?? []).map(resolveRule),
    namespaceSelector: options.namespaceSelector,
    objectSelector: options.objectSelector,
    matchPolicy: options.matchPolicy ?? 'Equivalent',
    matchConditions: options.matchConditions ?? [],
    variables: options.variables ?? [],
    failurePolicy: options.failurePolicy ?? 'Fail',
    paramKind: options.paramKind,
    paramRef: options.paramRef,
  };
}
