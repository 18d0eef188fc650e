/**
 * The `rbac` option of `@Webhook`: the API access a handler's lookups need,
 * declared beside the code like kubebuilder's `+kubebuilder:rbac` markers.
 * `shaper-gen manifests` merges every webhook's rules into the chart's
 * ClusterRole; the runtime only validates them.
 */
import { CACHE_VERBS, type CachedResource } from '../cache/cached-resource.js';
import { RBAC_RULE_SPELLINGS } from '../options/api-spellings.js';
import { checkKeys, eachItem, isPlainObject, validOnly, type Checker, type Report } from '../options/check.js';
import { isApiGroupOrWildcard, isResourceReference } from '../options/kubernetes-names.js';
import type { ProblemPath } from '../problems.js';

/** One RBAC PolicyRule the handler's ServiceAccount needs (through `ctx.kube`). */
export interface RbacRule {
  /** API groups; `''` is the core group. */
  readonly groups: readonly string[];
  /** Resources (plural), optionally `<resource>/<subresource>`. */
  readonly resources: readonly string[];
  /** Verbs, e.g. get, list, watch. */
  readonly verbs: readonly string[];
  /** Restricts the rule to these object names. */
  readonly resourceNames?: readonly string[];
}

/** A ClusterRole rule as the chart renders it. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

const RULE_KEYS = ['groups', 'resources', 'verbs', 'resourceNames'];
const VERB = /^(\*|[a-z]+)$/;

export const checkRbacRules: Checker<RbacRule[]> = (value, path, report) => {
  if (!Array.isArray(value)) return (report(path, `rbac must be an array of {groups, resources, verbs}, got ${typeof value}`), undefined);
  return validOnly(report, (report) => eachItem(value, path, report, (rule, at, report) => checkRbacRule(rule, at, report)));
};

function checkRbacRule(value: unknown, at: ProblemPath, report: Report): RbacRule | undefined {
  if (!isPlainObject(value)) return (report(at, 'rbac rule must be an object {groups, resources, verbs}'), undefined);
  report = checkKeys(value, at, report, {
    known: RULE_KEYS,
    unknown: (key, hint) => `unknown key "${key}" in rbac rule; ${hint}expected ${RULE_KEYS.join(', ')}`,
    spellings: RBAC_RULE_SPELLINGS,
  });
  const list = (key: string, valid: (item: string) => boolean, expected: string): string[] | undefined => {
    const items = value[key];
    if (!Array.isArray(items) || items.length === 0) return (report([...at, key], `${key} must be a non-empty array of strings`), undefined);
    const strings = items.filter((item, j): item is string => {
      const ok = typeof item === 'string' && valid(item);
      if (!ok) report([...at, key, j], `${key}[${j}] ${JSON.stringify(item)} must be ${expected}`);
      return ok;
    });
    return strings.length === items.length ? strings : undefined;
  };
  const required = (key: string, valid: (item: string) => boolean, expected: string) =>
    value[key] === undefined ? (report([...at, key], `rbac rule option "${key}" is required`), undefined) : list(key, valid, expected);
  const groups = required('groups', isApiGroupOrWildcard, '"" (core), "*" or a DNS subdomain');
  const resources = required('resources', isResourceReference, 'a lower-case plural resource, "<resource>/<subresource>" or "*"');
  const verbs = required('verbs', (verb) => VERB.test(verb), 'a lower-case verb like "get", "list", "watch", or "*"');
  const resourceNames = value.resourceNames === undefined ? undefined : list('resourceNames', (name) => name !== '', 'a non-empty object name');
  if (!groups || !resources || !verbs) return undefined;
  return { groups, resources, verbs, ...(resourceNames && { resourceNames }) };
}

/** Everything a webhook's ServiceAccount needs: its `rbac` rules and what its `cache` reads. */
export function rbacRulesOf(webhook: { readonly rbac: readonly RbacRule[]; readonly cache: readonly CachedResource[] }): RbacRule[] {
  return [...webhook.rbac, ...cacheRbacRules(webhook.cache)];
}

/**
 * All webhooks' rules as one sorted, deduplicated ClusterRole rule list, merged
 * as controller-tools merges `+kubebuilder:rbac` markers: verbs are united per
 * group, resource and resource names, then resources sharing the same group,
 * verbs and names are listed in one rule.
 */
export function mergeRbacRules(rules: readonly RbacRule[]): PolicyRule[] {
  const verbsByTarget = new Map<string, Set<string>>();
  for (const rule of rules) {
    const names = [...new Set(rule.resourceNames ?? [])].sort().join(',');
    for (const group of rule.groups) {
      for (const resource of rule.resources) {
        const key = JSON.stringify([group, names, resource]);
        const verbs = verbsByTarget.get(key) ?? new Set<string>();
        for (const verb of rule.verbs) verbs.add(verb);
        verbsByTarget.set(key, verbs);
      }
    }
  }
  const resourcesByRule = new Map<string, string[]>();
  for (const [key, verbs] of verbsByTarget) {
    const [group, names, resource] = JSON.parse(key) as [string, string, string];
    const verbList = verbs.has('*') ? ['*'] : [...verbs].sort();
    const ruleKey = JSON.stringify([group, verbList.join(','), names]);
    resourcesByRule.set(ruleKey, [...(resourcesByRule.get(ruleKey) ?? []), resource]);
  }
  return [...resourcesByRule]
    .map(([key, resources]) => {
      const [group, verbs, names] = JSON.parse(key) as [string, string, string];
      return {
        apiGroups: [group],
        resources: [...resources].sort(),
        verbs: verbs.split(','),
        ...(names && { resourceNames: names.split(',') }),
      };
    })
    .sort((a, b) => (ruleOrder(a) < ruleOrder(b) ? -1 : ruleOrder(a) > ruleOrder(b) ? 1 : 0));
}

function ruleOrder(rule: PolicyRule): string {
  return [rule.apiGroups[0], rule.resources[0], rule.resourceNames?.join(',') ?? '', rule.verbs.join(',')].join('\0');
}

/** The RBAC rules a webhook's cache declaration needs. */
export function cacheRbacRules(resources: readonly CachedResource[]): RbacRule[] {
  return resources.map((r) => ({ groups: [r.group], resources: [r.resource], verbs: [...CACHE_VERBS] }));
}
