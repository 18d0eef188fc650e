import { describe, expect, it } from 'vitest';
import { mergeRbacRules } from '../../../../runtime/webhook/rbac-options.js';
import { resolveWebhookOptions } from '../../../../runtime/webhook/options/resolve.js';

const base = { path: '/validate-x', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }] };

describe('rbac option', () => {
  it('merges rules as controller-tools merges +kubebuilder:rbac markers: verbs united, resources grouped, sorted', () => {
    expect(
      mergeRbacRules([
        { groups: ['shaper.io'], resources: ['profiles'], verbs: ['get'] },
        { groups: ['shaper.io'], resources: ['profiles'], verbs: ['list', 'get'] },
        { groups: ['shaper.io'], resources: ['assignments'], verbs: ['get', 'list'] },
        { groups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['b', 'a'] },
        { groups: [''], resources: ['configmaps', 'namespaces'], verbs: ['get'] },
        { groups: ['apps'], resources: ['deployments'], verbs: ['*', 'get'] },
      ]),
    ).toEqual([
      { apiGroups: [''], resources: ['configmaps', 'namespaces'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a', 'b'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] },
      { apiGroups: ['shaper.io'], resources: ['assignments', 'profiles'], verbs: ['get', 'list'] },
    ]);
  });

  it('is empty without rbac options and defaults to [] on the resolved webhook', () => {
    expect(mergeRbacRules([])).toEqual([]);
    expect(resolveWebhookOptions(base).webhook?.rbac).toEqual([]);
  });

  it('reports each wrong entry at its option path', () => {
    const { problems } = resolveWebhookOptions({
      ...base,
      rbac: [{ groups: ['Shaper.io'], resources: ['Profiles'], verbs: ['GET'], resourceName: ['x'] }, { groups: [''], resources: ['pods'] }, 'get'],
    });
    expect(problems).toEqual([
      { path: ['rbac', 0, 'resourceName'], message: 'unknown key "resourceName" in rbac rule; did you mean "resourceNames"? expected groups, resources, verbs, resourceNames' },
      { path: ['rbac', 0, 'groups', 0], message: 'groups[0] "Shaper.io" must be "" (core), "*" or a DNS subdomain' },
      { path: ['rbac', 0, 'resources', 0], message: 'resources[0] "Profiles" must be a lower-case plural resource, "<resource>/<subresource>" or "*"' },
      { path: ['rbac', 0, 'verbs', 0], message: 'verbs[0] "GET" must be a lower-case verb like "get", "list", "watch", or "*"' },
      { path: ['rbac', 1, 'verbs'], message: 'rbac rule option "verbs" is required' },
      { path: ['rbac', 2], message: 'rbac rule must be an object {groups, resources, verbs}' },
    ]);
  });
});
