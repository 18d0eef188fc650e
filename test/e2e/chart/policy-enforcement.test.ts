/**
 * Who enforces each of the sample's policies, as the pinned helm renders the
 * chart: the API server where it serves the policy's kind, else `serve`
 * through a webhook entry named after the policy — with the policy's objects
 * in the server's configuration, the reads it needs in the RBAC rules, its
 * path among those the server must serve, and the CEL engine's memory in the
 * container's resources. policies.enforcement (and each policy's override)
 * forces either way.
 */
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseServerConfig } from '../../../runtime/config/server-config.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { findObject, helmTemplate, helmTemplateText, type HelmOptions, type K8sObject } from '../../support/helm.js';

const CHART = path.join(REPO_ROOT, 'charts/shaper-webhooks');
const FULLNAME = 'shaper-shaper-webhooks';
const release = { release: 'shaper', namespace: 'shaper-system' };
const MUTATING = 'assignment-profile-label-policy.shaper.io';
const VALIDATING = ['profile-description-policy.shaper.io', 'profile-tier-policy.shaper.io', 'tier-label-policy'];
const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'];

async function render(options: HelmOptions) {
  const objects = await helmTemplate(CHART, { ...release, ...options });
  const config = parseServerConfig(findObject(objects, 'ConfigMap', `${FULLNAME}-config`).data['config.yaml'], 'config.yaml');
  const entries = (kind: string) => (objects.find((o) => o.kind === kind)?.webhooks ?? []) as { name: string; clientConfig: { service: { path: string } } }[];
  const deployment = findObject(objects, 'Deployment', FULLNAME);
  const container = deployment.spec.template.spec.containers[0];
  return {
    objects,
    policies: objects.filter((o) => POLICY_KINDS.includes(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`),
    served: config.policies.served.map((entry) => entry.path),
    servedObjects: config.policies.served.map((entry) => parseAllDocuments(entry.objects).map((document) => document.toJS() as K8sObject)),
    policyEntries: [...entries('ValidatingWebhookConfiguration'), ...entries('MutatingWebhookConfiguration')].filter((entry) => entry.clientConfig.service.path.includes('-policy-')),
    expectedPaths: config.expectedPaths,
    rules: findObject(objects, 'ClusterRole').rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[],
    resources: container.resources,
    nodeOptions: container.env.find((variable: { name: string }) => variable.name === 'NODE_OPTIONS').value,
  };
}

const apiObjects = (...names: string[]) =>
  names
    .flatMap((name) =>
      (name === MUTATING ? ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'] : ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']).map((kind) => `${kind}/${name}`),
    )
    .sort();
const DEFAULT_RESOURCES = { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } };
const HEAP = '--max-semi-space-size=4 --max-old-space-size=112';

describe('policy enforcement in the chart', () => {
  it('leaves every policy to an API server that serves both kinds (1.37), the server unchanged', async () => {
    const rendered = await render({ kubeVersion: '1.37.0' });
    expect(rendered.policies.sort()).toEqual(apiObjects(MUTATING, ...VALIDATING));
    expect([rendered.served, rendered.policyEntries, rendered.resources, rendered.nodeOptions]).toEqual([[], [], DEFAULT_RESOURCES, HEAP]);
    expect(rendered.rules).toEqual([{ apiGroups: ['shaper.io'], resources: ['profiles'], verbs: ['get', 'list', 'watch'] }]);
  });

  it('has serve enforce the MutatingAdmissionPolicy where the API server has no such kind (1.30): its entry, objects, path, reads and memory', async () => {
    const rendered = await render({ kubeVersion: '1.30.0' });
    expect(rendered.policies.sort()).toEqual(apiObjects(...VALIDATING));
    const path = `/mutate-policy-${MUTATING}`;
    expect(rendered.served).toEqual([path]);
    expect(rendered.expectedPaths).toContain(path);
    expect(rendered.policyEntries).toEqual([
      {
        name: MUTATING,
        admissionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { service: { name: FULLNAME, namespace: 'shaper-system', port: 443, path } },
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        // The chart's guard, as for every webhook: the release's namespace and kube-system never wait for a server that may be down.
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['shaper-system', 'kube-system'] }] },
        reinvocationPolicy: 'Never',
        rules: [{ apiGroups: ['shaper.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['assignments'], scope: '*' }],
        sideEffects: 'None',
        timeoutSeconds: 10,
      },
    ]);
    // The objects the server enforces are exactly the ones the API server is given where it serves the kind (rendered for 1.37).
    const asPolicies = (await render({ kubeVersion: '1.37.0' })).objects.filter((o) => o.metadata.name === MUTATING && o.kind.startsWith('MutatingAdmissionPolicy'));
    expect(rendered.servedObjects).toEqual([asPolicies]);
    expect(rendered.rules).toEqual([
      { apiGroups: ['shaper.io'], resources: ['profiles'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list', 'watch'] },
    ]);
    // The engine lives outside V8's heap: the container gets its memory on top, the heap stays as it was.
    expect([rendered.resources, rendered.nodeOptions]).toEqual([{ requests: { cpu: '50m', memory: '544Mi' }, limits: { memory: '704Mi' } }, HEAP]);
  });

  it('forces either way: serve for every policy, api for none of them by serve, one policy by its override', async () => {
    const all = await render({ kubeVersion: '1.37.0', set: { 'policies.enforcement': 'serve' } });
    expect([all.policies, all.served.sort(), all.policyEntries.map((entry) => entry.name).sort()]).toEqual([
      [],
      [`/mutate-policy-${MUTATING}`, ...VALIDATING.map((name) => `/validate-policy-${name}`)].sort(),
      // tier-label-policy has too few segments for a webhook name: its entry takes a suffix.
      [MUTATING, 'profile-description-policy.shaper.io', 'profile-tier-policy.shaper.io', 'tier-label-policy.policy.shaper-gen.io'].sort(),
    ]);
    const none = await render({ kubeVersion: '1.30.0', set: { 'policies.enforcement': 'api' } });
    expect([none.policies.sort(), none.served, none.policyEntries, none.resources]).toEqual([apiObjects(...VALIDATING), [], [], DEFAULT_RESOURCES]);
    const one = await render({ kubeVersion: '1.37.0', set: { 'policies.overrides': { 'profile-tier-policy.shaper.io': { enforcement: 'serve' } } } });
    expect([one.policies.sort(), one.served]).toEqual([apiObjects(MUTATING, 'profile-description-policy.shaper.io', 'tier-label-policy'), ['/validate-policy-profile-tier-policy.shaper.io']]);
  });

  it('refuses an enforcement it does not know, naming the choices', async () => {
    await expect(helmTemplateText(CHART, { set: { 'policies.enforcement': 'webhook' } })).rejects.toThrow(/policies\.enforcement.*(auto|must be one of)/s);
  });
});
