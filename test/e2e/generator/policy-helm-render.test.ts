/**
 * The generated ValidatingAdmissionPolicies and bindings, rendered by the real
 * (pinned) helm and parsed: whole objects under each chart setting that
 * changes them (policies.enabled, policies.validationActions, per-policy
 * overrides), the gate on the API being served (--kube-version,
 * --api-versions), and the Go wire oracle decoding them strictly into the
 * admissionregistration.k8s.io/v1 types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureProject } from '../../support/fixture-project.js';
import { helmLint, helmTemplate, helmTemplateText, type HelmOptions, type K8sObject } from '../../support/helm.js';
import { judgeManifests } from '../../../support/oracle.js';
import { CHART_LABELS, generatedWidgetProject } from '../../support/widget-policy-project.js';

const POLICIES = `import { ValidatingPolicy } from 'shaper-gen';

@ValidatingPolicy({
  name: 'widget-limits.example.com',
  rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  excludeResourceRules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['UPDATE'] }],
  namespaceSelector: { matchLabels: { 'example.com/enforce': 'true' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] },
  objectSelector: { matchExpressions: [{ key: 'example.com/skip', operator: 'DoesNotExist' }] },
  matchPolicy: 'Exact',
  matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
  variables: [{ name: 'limit', expression: "has(params.data) && 'max' in params.data ? int(params.data.max) : 5" }],
  validations: [
    { expression: 'object.spec.replicas <= variables.limit', messageExpression: "'at most ' + string(variables.limit) + ' replicas'", reason: 'Forbidden' },
    { expression: "object.spec.tier != '{{x}}'", message: 'no "{{" in a tier' },
  ],
  auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
  failurePolicy: 'Ignore',
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  paramRef: { namespace: 'limits', selector: { matchLabels: { 'example.com/limits': 'true' } }, parameterNotFoundAction: 'Allow' },
  validationActions: ['Warn', 'Audit'],
})
export class WidgetLimits {}

@ValidatingPolicy({
  rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
  validations: [{ expression: "has(object.metadata.annotations) && 'example.com/owner' in object.metadata.annotations" }],
})
export class ConfigMapOwner {}
`;

const VAP = 'ValidatingAdmissionPolicy';
const BINDING = 'ValidatingAdmissionPolicyBinding';
const VAP_API = 'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';

const WIDGET_POLICY = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: VAP,
  metadata: { name: 'widget-limits.example.com', labels: CHART_LABELS },
  spec: {
    failurePolicy: 'Ignore',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      matchPolicy: 'Exact',
      namespaceSelector: { matchLabels: { 'example.com/enforce': 'true' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] },
      objectSelector: { matchExpressions: [{ key: 'example.com/skip', operator: 'DoesNotExist' }] },
      resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'], scope: 'Namespaced' }],
      excludeResourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['widgets'], scope: '*' }],
    },
    matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
    variables: [{ name: 'limit', expression: "has(params.data) && 'max' in params.data ? int(params.data.max) : 5" }],
    validations: [
      { expression: 'object.spec.replicas <= variables.limit', messageExpression: "'at most ' + string(variables.limit) + ' replicas'", reason: 'Forbidden' },
      // A literal "{{" in a value survives Helm's template engine.
      { expression: "object.spec.tier != '{{x}}'", message: 'no "{{" in a tier' },
    ],
    auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
  },
};
const WIDGET_BINDING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: BINDING,
  metadata: { name: 'widget-limits.example.com', labels: CHART_LABELS },
  spec: {
    policyName: 'widget-limits.example.com',
    validationActions: ['Warn', 'Audit'],
    paramRef: { namespace: 'limits', selector: { matchLabels: { 'example.com/limits': 'true' } }, parameterNotFoundAction: 'Allow' },
  },
};
const OWNER_POLICY = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: VAP,
  metadata: { name: 'config-map-owner', labels: CHART_LABELS },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: '*' }],
    },
    validations: [{ expression: "has(object.metadata.annotations) && 'example.com/owner' in object.metadata.annotations" }],
  },
};
const OWNER_BINDING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: BINDING,
  metadata: { name: 'config-map-owner', labels: CHART_LABELS },
  spec: { policyName: 'config-map-owner', validationActions: ['Deny'] },
};

let project: FixtureProject;
let chart: string;

beforeAll(async () => {
  project = await generatedWidgetProject({ 'src/policies.ts': POLICIES });
  chart = project.file('charts/shaper-webhooks');
});
afterAll(() => project.remove());

/** The policies and bindings helm renders, in its order. */
async function policyObjects(options: HelmOptions = {}): Promise<K8sObject[]> {
  return (await helmTemplate(chart, options)).filter((o) => o.kind === VAP || o.kind === BINDING);
}

describe('generated ValidatingAdmissionPolicies rendered by helm', () => {
  it('pass helm lint --strict', async () => {
    await expect(helmLint(chart)).resolves.toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('render every option into the policy and its binding (defaults; helm puts policies before bindings, each sorted by name)', async () => {
    expect(await policyObjects()).toEqual([OWNER_POLICY, WIDGET_POLICY, OWNER_BINDING, WIDGET_BINDING]);
  });

  it('decode strictly into the admissionregistration.k8s.io/v1 Go types, no value lost (wire oracle)', async () => {
    const verdicts = judgeManifests(await helmTemplateText(chart)).filter((v) => v.kind === VAP || v.kind === BINDING);
    expect(verdicts.map((v) => [v.kind, v.name, v.problems])).toEqual([
      [VAP, 'config-map-owner', []],
      [VAP, 'widget-limits.example.com', []],
      [BINDING, 'config-map-owner', []],
      [BINDING, 'widget-limits.example.com', []],
    ]);
  });

  it('are left out with policies.enabled=false, and one by one with policies.overrides.<name>.enabled=false', async () => {
    expect(await policyObjects({ set: { 'policies.enabled': false } })).toEqual([]);
    expect(await policyObjects({ set: { 'policies.overrides': { 'widget-limits.example.com': { enabled: false } } } })).toEqual([OWNER_POLICY, OWNER_BINDING]);
    // An override cannot bring one back when all are off.
    expect(await policyObjects({ set: { 'policies.enabled': false, 'policies.overrides': { 'widget-limits.example.com': { enabled: true } } } })).toEqual([]);
  });

  it('take validationActions from policies.validationActions, and from a per-policy override before that', async () => {
    const objects = await policyObjects({ set: { 'policies.validationActions': ['Warn'], 'policies.overrides': { 'config-map-owner': { validationActions: ['Deny', 'Audit'] } } } });
    expect(objects).toEqual([
      OWNER_POLICY,
      WIDGET_POLICY,
      { ...OWNER_BINDING, spec: { ...OWNER_BINDING.spec, validationActions: ['Deny', 'Audit'] } },
      { ...WIDGET_BINDING, spec: { ...WIDGET_BINDING.spec, validationActions: ['Warn'] } },
    ]);
  });

  it('refuse Deny with Warn in values, as the API server would', async () => {
    await expect(helmTemplate(chart, { set: { 'policies.validationActions': ['Deny', 'Warn'] } })).rejects.toMatchObject({
      stderr: expect.stringMatching(/values don't meet the specifications of the schema\(s\)[\s\S]*\/policies\/validationActions/),
    });
  });
});

describe('the gate on the API being served', () => {
  it('renders nothing for Kubernetes 1.29 without a cluster, and the policies from 1.30', async () => {
    const at129 = await helmTemplate(chart, { kubeVersion: '1.29.0' });
    expect(at129.filter((o) => o.kind === VAP || o.kind === BINDING)).toEqual([]);
    expect(at129.map((o) => o.kind)).toContain('Deployment');
    expect(await policyObjects({ kubeVersion: '1.30.0' })).toEqual([OWNER_POLICY, WIDGET_POLICY, OWNER_BINDING, WIDGET_BINDING]);
  });

  it('renders them where the API versions list ValidatingAdmissionPolicy, whatever the version', async () => {
    expect(await policyObjects({ kubeVersion: '1.29.0', apiVersions: [VAP_API] })).toEqual([OWNER_POLICY, WIDGET_POLICY, OWNER_BINDING, WIDGET_BINDING]);
  });

  it('renders nothing where the API versions list kinds but not ValidatingAdmissionPolicy (a cluster that does not serve it)', async () => {
    const apiVersions = ['admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration', 'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration'];
    expect(await policyObjects({ apiVersions })).toEqual([]);
    expect(await policyObjects({ kubeVersion: '1.33.0', apiVersions })).toEqual([]);
  });
});

describe('every rendered policy', () => {
  // admissionregistration.k8s.io/v1 Validation has expression, message, reason and messageExpression only: the wire
  // oracle decodes the rendered objects strictly into the API's Go types, so a field the API lacks fails here.
  it('is written only with fields the API has', async () => {
    const verdicts = judgeManifests(await helmTemplateText(chart)).filter((v) => v.kind === VAP);
    expect(verdicts.map((v) => [v.name, v.problems])).toEqual(verdicts.map((v) => [v.name, []]));
    expect(verdicts.length).toBeGreaterThan(0);
  });
});
