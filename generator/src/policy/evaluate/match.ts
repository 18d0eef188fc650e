/**
 * Whether a policy applies to a request, before any CEL: its resource rules
 * and exclusions, and its namespace and object selectors, as the API server
 * matches them (k8s.io/apiserver pkg/admission/plugin/policy/matching and
 * webhook/predicates). With matchPolicy Equivalent the server also matches a
 * request for another version of the same resource; a local request names
 * the version its object has, so only exact matches are decided here.
 */
import type { LabelSelector, ResolvedPolicy } from 'shaper-gen/internal/generator';

export interface MatchRequest {
  readonly operation: string;
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subResource?: string;
  readonly namespace?: string;
  readonly object?: unknown;
  readonly oldObject?: unknown;
}

interface Rule {
  readonly groups: readonly string[];
  readonly versions: readonly string[];
  readonly resources: readonly string[];
  readonly operations: readonly string[];
  readonly scope: string;
}

function ruleMatches(rule: Rule, request: MatchRequest): boolean {
  const { group, version, resource } = request.resource;
  const has = (list: readonly string[], value: string) => list.includes('*') || list.includes(value);
  if (!has(rule.operations, request.operation) || !has(rule.groups, group) || !has(rule.versions, version)) return false;
  const namespaced = request.namespace !== undefined && request.namespace !== '';
  if (rule.scope === 'Cluster' && namespaced) return false;
  if (rule.scope === 'Namespaced' && (!namespaced || resource === 'namespaces')) return false;
  const target = request.subResource ? `${resource}/${request.subResource}` : resource;
  return rule.resources.some((pattern) => {
    if (pattern === '*/*' || pattern === target) return true;
    const [patternResource, patternSub] = pattern.split('/') as [string, string | undefined];
    if (patternSub === undefined) return patternResource === '*' ? !request.subResource : false;
    return (
      (patternResource === '*' || patternResource === resource) && (patternSub === '*' ? request.subResource !== undefined && request.subResource !== '' : patternSub === request.subResource)
    );
  });
}

/** A label selector against labels (metav1 LabelSelectorAsSelector semantics); empty selects everything. */
export function selects(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const requirement of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(labels, requirement.key);
    const value = labels[requirement.key];
    const values = requirement.values ?? [];
    const ok =
      requirement.operator === 'In'
        ? present && values.includes(value!)
        : requirement.operator === 'NotIn'
          ? !present || !values.includes(value!)
          : requirement.operator === 'Exists'
            ? present
            : !present;
    if (!ok) return false;
  }
  return true;
}

function labelsOf(object: unknown): Record<string, string> {
  return (object as { metadata?: { labels?: Record<string, string> } } | null | undefined)?.metadata?.labels ?? {};
}

/** Why the policy does not apply, or undefined when it does (before its matchConditions). */
export function mismatch(policy: ResolvedPolicy, request: MatchRequest, namespaceObject: unknown): string | undefined {
  if (!policy.rules.some((rule) => ruleMatches(rule, request))) return 'no rule matches the request';
  if (policy.excludeResourceRules.some((rule) => ruleMatches(rule, request))) return 'an excludeResourceRule matches the request';
  // The object selector matches when either the new or the old object's labels match it.
  const objects = [request.object, request.oldObject].filter((o) => o !== null && o !== undefined);
  if (policy.objectSelector && !objects.some((o) => selects(policy.objectSelector, labelsOf(o)))) return 'the objectSelector does not select the object';
  // Cluster-scoped requests are not filtered by namespaceSelector; a Namespace is matched by its own labels.
  const namespaced = request.namespace !== undefined && request.namespace !== '';
  const ownNamespace = request.resource.group === '' && request.resource.resource === 'namespaces' ? (request.object ?? request.oldObject) : undefined;
  if (policy.namespaceSelector && (namespaced || ownNamespace)) {
    if (!selects(policy.namespaceSelector, labelsOf(ownNamespace ?? namespaceObject))) return 'the namespaceSelector does not select the namespace';
  }
  return undefined;
}
