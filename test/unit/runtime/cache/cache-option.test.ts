import { describe, expect, it } from 'vitest';
import { Webhook, type AdmissionContext } from 'shaper-gen';
import { runWebhook } from 'shaper-gen/testing';
import { resourceKey, resourcePath } from '../../../../runtime/cache/cached-resource.js';
import { mergeRbacRules, rbacRulesOf } from '../../../../runtime/webhook/rbac-options.js';
import { resolveWebhookOptions } from '../../../../runtime/webhook/options/resolve.js';

const base = { path: '/validate-x', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE' as const] }] };
const PROFILES = { group: 'shaper.io', version: 'v1alpha1', resource: 'profiles' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

describe('cache option', () => {
  it('grants get, list and watch on each cached resource, merged with the rbac rules', () => {
    const webhook = resolveWebhookOptions({ ...base, cache: [PROFILES, CONFIGMAPS], rbac: [{ groups: ['shaper.io'], resources: ['profiles'], verbs: ['update'] }] }).webhook!;
    expect(webhook.cache).toEqual([PROFILES, CONFIGMAPS]);
    expect(mergeRbacRules(rbacRulesOf(webhook))).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['shaper.io'], resources: ['profiles'], verbs: ['get', 'list', 'update', 'watch'] },
    ]);
  });

  it('names kubectl-style and builds API paths for core and named groups', () => {
    expect([resourceKey(PROFILES), resourceKey(CONFIGMAPS)]).toEqual(['profiles.shaper.io', 'configmaps']);
    expect(resourcePath(PROFILES)).toBe('/apis/shaper.io/v1alpha1/profiles');
    expect(resourcePath(PROFILES, 'team-a', 'gold')).toBe('/apis/shaper.io/v1alpha1/namespaces/team-a/profiles/gold');
    expect(resourcePath(CONFIGMAPS, 'a b')).toBe('/api/v1/namespaces/a%20b/configmaps');
  });

  it('reports every wrong entry with its path and the fix', () => {
    const { problems } = resolveWebhookOptions({
      ...base,
      cache: [
        { group: '*', version: 'v1', resource: 'pods' },
        { group: '', version: '*', resource: 'Pods' },
        { group: '', version: 'v1', resource: 'pods/status' },
        { grup: '', version: 'v1', resource: 'pods' },
        'configmaps',
        CONFIGMAPS,
        CONFIGMAPS,
      ],
    });
    expect(problems.map((p) => [p.path.join('.'), p.message])).toEqual([
      ['cache.0.group', 'API group "*" must be "" (core) or a DNS subdomain; "*" cannot be cached'],
      ['cache.1.version', 'API version "*" must be like "v1", "v1beta1"; "*" cannot be cached'],
      ['cache.1.resource', 'resource "Pods" must be a lower-case plural resource name without a subresource, e.g. "configmaps"'],
      ['cache.2.resource', 'resource "pods/status" must be a lower-case plural resource name without a subresource, e.g. "configmaps"'],
      ['cache.3.grup', 'unknown key "grup" in cache entry; did you mean "group"? expected group, version, resource'],
      ['cache.4', 'cache entry must be an object {group, version, resource}, e.g. { group: "", version: "v1", resource: "configmaps" }'],
      ['cache.6', 'duplicate cache entry configmaps v1'],
    ]);
  });
});

@Webhook({ path: '/validate-configmap', mutating: false, rules: base.rules, cache: [CONFIGMAPS] })
class ConfigMapReader {
  async validateCreate(obj: { metadata?: { name?: string } }, ctx: AdmissionContext) {
    if (obj.metadata?.name === 'undeclared') await ctx.cache.get(PROFILES, 'a', 'gold');
    const found = await ctx.cache.get(CONFIGMAPS, 'a', 'settings');
    const all = await ctx.cache.list(CONFIGMAPS, 'a');
    if (found) found.metadata!.name = 'changed by the handler';
    ctx.warn(`found ${found ? 'settings' : 'nothing'}; ${all.length} in a; then ${(await ctx.cache.get(CONFIGMAPS, 'a', 'settings'))?.metadata?.name}`);
  }
}

describe('ctx.cache in handler tests', () => {
  const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'a' } };
  const other = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'b' } };

  it('reads the objects given, as copies, and refuses a resource the webhook did not declare, naming the fix', async () => {
    const objects = { configmaps: [settings, other] };
    const decision = await runWebhook(ConfigMapReader, { object: { metadata: { name: 'x', namespace: 'a' } } }, { objects });
    expect(decision.warnings).toEqual(['found settings; 1 in a; then settings']);
    const undeclared = await runWebhook(ConfigMapReader, { object: { metadata: { name: 'undeclared', namespace: 'a' } } }, { objects });
    expect([undeclared.code, undeclared.message]).toEqual([
      500,
      'internal error in webhook validate-configmap.shaper-gen.io (/validate-configmap): ctx.cache: profiles.shaper.io v1alpha1 is not in the cache option of @Webhook /validate-configmap: add { group: "shaper.io", version: "v1alpha1", resource: "profiles" } to it, then run shaper-gen manifests (the chart\'s RBAC)',
    ]);
  });
});
