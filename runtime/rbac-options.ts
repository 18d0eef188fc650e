/**
 * The `rbac` option of `@Webhook`: the API access a handler's lookups need,
 * declared beside the code like kubebuilder's `+kubebuilder:rbac` markers.
 * `shaper-gen manifests` merges every webhook's rules into the chart's
 * ClusterRole; the runtime only validates them.
 */
import { cacheRbacRules, type CachedResource } from './cache/cached-resource.js';
import { didYouMean } from './did-you-mean.js';

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

type Report = (path: readonly (string | number)[], message: string) => void;

const RULE_KEYS = ['groups', 'resources', 'verbs', 'resourceNames'];
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RESOURCE = /^(\*|[a-z0-9]([-a-z0-9.]*[a-z0-9])?)(\/(\*|[a-z0-9]([-a-z0-9.]*[a-z0-9])?))?$/;
const VERB = /^(\*|[a-z]+)$/;

export function checkRbacRules(value: unknown, path: readonly (string | number)[], report: Report): void {
  if (!Array.isArray(value)) return report(path, `rbac must be an array of {groups, resources, verbs}, got ${typeof value}`);
  value.forEach((rule, i) => {
    const at = [...path, i];
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return report(at, 'rbac rule must be an object {groups, resources, verbs}');
    for (const key of Object.keys(rule)) {
      if (!RULE_KEYS.includes(key)) report([...at, key], `unknown key "${key}" in rbac rule; ${didYouMean(key, RULE_KEYS)}expected ${RULE_KEYS.join(', ')}`);
    }
    const list = (key: string, required: boolean, valid: (item: string) => boolean, expected: string) => {
      const items = (rule as Record<string, unknown>)[key];
      if (items === undefined) {
        if (required) report([...at, key], `rbac rule option "${key}" is required`);
        return;
      }
      if (!Array.isArray(items) || items.length === 0) return report([...at, key], `${key} must be a non-empty array of strings`);
      items.forEach((item, j) => {
        if (typeof item !== 'string' || !valid(item)) report([...at, key, j], `${key}[${j}] ${JSON.stringify(item)} must be ${expected}`);
      });
    };
    list('groups', true, (group) => group === '' || group === '*' || DNS_SUBDOMAIN.test(group), '"" (core), "*" or a DNS subdomain');
    list('resources', true, (resource) => RESOURCE.test(resource), 'a lower-case plural resource, "<resource>/<subresource>" or "*"');
    list('verbs', true, (verb) => VERB.test(verb), 'a lower-case verb like "get", "list", "watch", or "*"');
    list('resourceNames', false, (name) => name !== '', 'a non-empty object name');
  });
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
