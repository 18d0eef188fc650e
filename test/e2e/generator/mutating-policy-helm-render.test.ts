/**
 * The generated MutatingAdmissionPolicies and bindings, rendered by the real
 * (pinned) helm and parsed: whole objects, switched off by values, the gate
 * on the API being served (v1 from 1.36 or where listed, v1beta1 where only
 * that is listed), and the Go wire oracle decoding them strictly into the
 * admissionregistration.k8s.io/v1 types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeManifests } from '../../../support/oracle.js';
import type { FixtureProject } from '../../support/fixture-project.js';
import { helmLint, helmTemplate, helmTemplateText, type HelmOptions, type K8sObject } from '../../support/helm.js';
import { CHART_LABELS, generatedWidgetProject } from '../../support/widget-policy-project.js';

const POLICIES = `import { MutatingPolicy } from 'shaper-gen';

@MutatingPolicy({
  name: 'widget-defaults.example.com',
  rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  excludeResourceRules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['UPDATE'] }],
  namespaceSelector: { matchLabels: { 'example.com/defaults': 'true' } },
  matchPolicy: 'Exact',
  matchConditions: [{ name: 'no-replicas', expression: '!has(object.spec.replicas)' }],
  variables: [{ name: 'replicas', expression: "has(params.data) && 'replicas' in params.data ? int(params.data.replicas) : 1" }],
  mutations: [
    { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: variables.replicas}}' } },
    { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'example.com/{{by}}': 'shaper'}}]" } },
  ],
  failurePolicy: 'Ignore',
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  paramRef: { name: 'widget-defaults', namespace: 'defaults', parameterNotFoundAction: 'Allow' },
  reinvocationPolicy: 'IfNeeded',
})
export class WidgetDefaults {}
`;

const MAP = 'MutatingAdmissionPolicy';
const BINDING = 'MutatingAdmissionPolicyBinding';
const V1 = 'admissionregistration.k8s.io/v1';
const V1BETA1 = 'admissionregistration.k8s.io/v1beta1';
const LISTS_KINDS = 'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration';

const policy = (apiVersion: string) => ({
  apiVersion,
  kind: MAP,
  metadata: { name: 'widget-defaults.example.com', labels: CHART_LABELS },
  spec: {
    failurePolicy: 'Ignore',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      matchPolicy: 'Exact',
      namespaceSelector: { matchLabels: { 'example.com/defaults': 'true' } },
      objectSelector: {},
      resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'], scope: 'Namespaced' }],
      excludeResourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['widgets'], scope: '*' }],
    },
    matchConditions: [{ name: 'no-replicas', expression: '!has(object.spec.replicas)' }],
    variables: [{ name: 'replicas', expression: "has(params.data) && 'replicas' in params.data ? int(params.data.replicas) : 1" }],
    mutations: [
      { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: variables.replicas}}' } },
      // A literal "{{" in an expression survives Helm's template engine.
      { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'example.com/{{by}}': 'shaper'}}]" } },
    ],
    reinvocationPolicy: 'IfNeeded',
  },
});
const binding = (apiVersion: string) => ({
  apiVersion,
  kind: BINDING,
  metadata: { name: 'widget-defaults.example.com', labels: CHART_LABELS },
  spec: { policyName: 'widget-defaults.example.com', paramRef: { name: 'widget-defaults', namespace: 'defaults', parameterNotFoundAction: 'Allow' } },
});

let project: FixtureProject;
let chart: string;

beforeAll(async () => {
  project = await generatedWidgetProject({ 'src/policies.ts': POLICIES });
  chart = project.file('charts/shaper-webhooks');
});
afterAll(() => project.remove());

async function policyObjects(options: HelmOptions): Promise<K8sObject[]> {
  return (await helmTemplate(chart, options)).filter((o) => o.kind === MAP || o.kind === BINDING);
}

describe('generated MutatingAdmissionPolicies rendered by helm', () => {
  it('pass helm lint --strict', async () => {
    await expect(helmLint(chart)).resolves.toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('render every option into the policy and its binding, in admissionregistration.k8s.io/v1 from Kubernetes 1.36 without a cluster', async () => {
    expect(await policyObjects({ kubeVersion: '1.36.0' })).toEqual([policy(V1), binding(V1)]);
    expect(await policyObjects({ kubeVersion: '1.35.0' })).toEqual([]);
  });

  it('follow the API versions a cluster lists: v1, else v1beta1, else none', async () => {
    expect(await policyObjects({ kubeVersion: '1.35.0', apiVersions: [LISTS_KINDS, `${V1}/${MAP}`] })).toEqual([policy(V1), binding(V1)]);
    expect(await policyObjects({ kubeVersion: '1.35.0', apiVersions: [LISTS_KINDS, `${V1BETA1}/${MAP}`] })).toEqual([policy(V1BETA1), binding(V1BETA1)]);
    expect(await policyObjects({ kubeVersion: '1.37.0', apiVersions: [LISTS_KINDS] })).toEqual([]);
  });

  it('are left out with policies.enabled=false, and by policies.overrides.<name>.enabled=false', async () => {
    expect(await policyObjects({ kubeVersion: '1.37.0', set: { 'policies.enabled': false } })).toEqual([]);
    expect(await policyObjects({ kubeVersion: '1.37.0', set: { 'policies.overrides': { 'widget-defaults.example.com': { enabled: false } } } })).toEqual([]);
  });

  it('decode strictly into the admissionregistration.k8s.io/v1 Go types, no value lost (wire oracle)', async () => {
    const verdicts = judgeManifests(await helmTemplateText(chart, { kubeVersion: '1.37.0' })).filter((v) => v.kind === MAP || v.kind === BINDING);
    expect(verdicts.map((v) => [v.kind, v.name, v.problems])).toEqual([
      [MAP, 'widget-defaults.example.com', []],
      [BINDING, 'widget-defaults.example.com', []],
    ]);
  });
});
