/**
 * `@Webhook` options to a ResolvedWebhook: every option checked (fields.ts),
 * the checks between options, then the Kubernetes defaults. The generator
 * applies it to decorator arguments it evaluates statically (and maps each
 * problem's path back to a source location); the runtime applies it when a
 * class is decorated.
 */
import type { Problem } from '../../problems.js';
import { checkKeys, isPlainObject, type ApiSpellings, type KeyRules, type Report } from '../../options/check.js';
import { checkFields, WEBHOOK_FIELDS, WEBHOOK_OPTION_NAMES } from './fields.js';
import { isDnsSubdomain, MAX_DNS_SUBDOMAIN } from '../../options/kubernetes-names.js';
import type { ResolvedRule, ResolvedWebhook, RuleOptions, WebhookOptions } from './types.js';

export const DEFAULT_NAME_SUFFIX = 'shaper-gen.io';
export const DEFAULT_TIMEOUT_SECONDS = 10;

/**
 * `<path without "/", "/" and "." as "-">.<domain>`: the domain is the first
 * API group of the rules that is a domain (the user's own, e.g. "shaper.io"),
 * else shaper-gen.io (core and built-in groups like "apps").
 */
export function defaultWebhookName(path: string, rules: readonly { readonly groups: readonly string[] }[] = []): string {
  return `${path.replace(/^\//, '').replace(/[/.]/g, '-')}.${nameDomain(rules)}`;
}

/** The domain default names end in: the first API group of the rules that is a domain, else shaper-gen.io. */
export function nameDomain(rules: readonly { readonly groups: readonly string[] }[]): string {
  return rules.flatMap((rule) => rule.groups).find((group) => group.includes('.') && isDnsSubdomain(group)) ?? DEFAULT_NAME_SUFFIX;
}

/** The domains of Kubernetes' own API groups (apps, networking.k8s.io, …): reserved to the project, owned by no user. */
const KUBERNETES_DOMAINS = ['k8s.io', 'kubernetes.io'];

/**
 * The first API group of the rules that is a domain of the user's: a DNS
 * subdomain with a dot, not Kubernetes' own; undefined when the rules name only
 * core and built-in groups.
 */
export function ownDomain(rules: readonly { readonly groups: readonly string[] }[]): string | undefined {
  return rules
    .flatMap((rule) => rule.groups)
    .find((group) => group.includes('.') && isDnsSubdomain(group) && !KUBERNETES_DOMAINS.some((domain) => group === domain || group.endsWith(`.${domain}`)));
}

/** A decorator's options: an unknown one named with the known ones. */
export function optionKeys(known: readonly string[], spellings?: ApiSpellings): KeyRules {
  return { known, unknown: (key, hint) => `unknown option "${key}"; ${hint}known options: ${known.join(', ')}`, spellings };
}

/** A rule with its scope defaulted, as webhooks and policies resolve it. */
export function resolveRule(rule: RuleOptions): ResolvedRule {
  return { groups: [...rule.groups], versions: [...rule.versions], resources: [...rule.resources], operations: [...rule.operations], scope: rule.scope ?? '*' };
}

/**
 * Validates decorator options and applies defaults. Every problem is reported
 * (not just the first), each with the option path it concerns.
 */
export function resolveWebhookOptions(raw: unknown): { webhook?: ResolvedWebhook; problems: Problem[] } {
  const problems: Problem[] = [];
  const report: Report = (path, message) => problems.push({ path, message });
  if (!isPlainObject(raw)) {
    report([], '@Webhook expects an options object');
    return { problems };
  }
  const checked = checkKeys(raw, [], report, optionKeys(WEBHOOK_OPTION_NAMES));
  const options = checkFields(raw, WEBHOOK_FIELDS, checked);
  checkBetweenOptions(raw, options, checked);
  const { path, mutating, rules } = options;
  if (problems.length > 0 || path === undefined || mutating === undefined || rules === undefined) return { problems };
  return { webhook: withDefaults({ ...options, path, mutating, rules }), problems };
}

/** What one option cannot tell alone; `options` holds the valid ones. */
function checkBetweenOptions(raw: Record<string, unknown>, options: Partial<WebhookOptions>, report: Report): void {
  const { path, mutating } = options;
  if (path !== undefined && raw.name === undefined) {
    const name = defaultWebhookName(path, Array.isArray(raw.rules) ? raw.rules.filter(hasGroups) : []);
    if (name.length > MAX_DNS_SUBDOMAIN) {
      report(
        ['path'],
        `the default webhook name "${name}" derived from this path is ${name.length} characters, over the ${MAX_DNS_SUBDOMAIN} the API server allows: set \`name\` or shorten the path`,
      );
    }
  }
  if (path !== undefined && mutating !== undefined) {
    const prefix = mutating ? '/mutate-' : '/validate-';
    if (!path.startsWith(prefix)) report(['path'], `a ${mutating ? 'mutating' : 'validating'} webhook's path must start with "${prefix}", got "${path}"`);
  }
  if (raw.mutating === false && raw.reinvocationPolicy !== undefined) {
    report(['reinvocationPolicy'], 'reinvocationPolicy applies to mutating webhooks only');
  }
}

function withDefaults(options: WebhookOptions): ResolvedWebhook {
  return {
    path: options.path,
    mutating: options.mutating,
    name: options.name ?? defaultWebhookName(options.path, options.rules),
    configuration: options.configuration,
    rules: options.rules.map(resolveRule),
    failurePolicy: options.failurePolicy ?? 'Fail',
    sideEffects: options.sideEffects ?? 'None',
    timeoutSeconds: options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    matchPolicy: options.matchPolicy ?? 'Equivalent',
    reinvocationPolicy: options.mutating ? (options.reinvocationPolicy ?? 'Never') : undefined,
    admissionReviewVersions: [...(options.admissionReviewVersions ?? ['v1'])],
    namespaceSelector: options.namespaceSelector,
    objectSelector: options.objectSelector,
    matchConditions: options.matchConditions,
    rbac: options.rbac ?? [],
    cache: options.cache ?? [],
  };
}

function hasGroups(rule: unknown): rule is { groups: string[] } {
  return isPlainObject(rule) && Array.isArray(rule.groups) && rule.groups.every((group) => typeof group === 'string');
}
