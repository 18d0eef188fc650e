/**
 * `admit` (shaper-gen/testing): one request through the API server's own
 * MutatingAdmissionPolicy and ValidatingAdmissionPolicy plugins, over
 * policies written as YAML (text and files) and plain objects: bindings by
 * their own names, params by paramRef with parameterNotFoundAction, labelled
 * namespaces, reinvocation, ApplyConfiguration merged by the Pod's schema.
 * The expected texts are kube-apiserver 1.37's (the cluster differential,
 * test/cluster/chain.test.ts, compares them with a real one).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MutatingPolicy, ValidatingPolicy } from 'shaper-gen';
import { admit } from 'shaper-gen/testing';

const pod = (containers: object[] = [{ name: 'app', image: 'nginx' }]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team', labels: { app: 'web' } },
  spec: { containers },
});

const SIDECAR = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: sidecar
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [pods]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{spec: Object.spec{containers: [Object.spec.containers{name: "proxy", image: "proxy:1"}]}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: sidecar-everywhere
spec:
  policyName: sidecar
`;

const COUNT_LABEL = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: a-count-label
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [pods]
  variables:
    - name: count
      expression: string(size(object.spec.containers))
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"containers": variables.count}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: a-count-label-binding
spec:
  policyName: a-count-label
`;

const limitPolicy = (paramRef: object) => [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'container-limit' },
    spec: {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: 'params == null || object.spec.containers.size() <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' containers'" }],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'container-limit-in-teams' },
    spec: { policyName: 'container-limit', validationActions: ['Deny'], paramRef, matchResources: { namespaceSelector: { matchLabels: { tier: 'team' } } } },
  },
];

const team = (labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', labels: { 'kubernetes.io/metadata.name': 'team', ...labels } } });
const limits = (max: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'team' }, data: { max } });

describe('admit', () => {
  it('runs every mutating policy, reinvokes the one that asks, then validates the mutated object', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'admit-'));
    const file = path.join(dir, 'sidecar.yaml');
    writeFileSync(file, SIDECAR);
    expect(
      await admit({
        object: pod(),
        policies: [file, COUNT_LABEL, ...limitPolicy({ name: 'limits', parameterNotFoundAction: 'Deny' })],
        namespaces: [team({ tier: 'team' })],
        params: [limits('2')],
      }),
    ).toEqual({
      allowed: true,
      code: 200,
      warnings: [],
      auditAnnotations: {},
      object: {
        ...pod([
          { name: 'app', image: 'nginx' },
          { name: 'proxy', image: 'proxy:1' },
        ]),
        metadata: { name: 'web', namespace: 'team', labels: { app: 'web', containers: '2' } },
      },
      steps: [
        { plugin: 'MutatingAdmissionPolicy', policy: 'a-count-label', binding: 'a-count-label-binding', pass: 1 },
        { plugin: 'MutatingAdmissionPolicy', policy: 'sidecar', binding: 'sidecar-everywhere', pass: 1 },
        { plugin: 'MutatingAdmissionPolicy', policy: 'a-count-label', binding: 'a-count-label-binding', pass: 2 },
        { plugin: 'ValidatingAdmissionPolicy', policy: 'container-limit', binding: 'container-limit-in-teams', pass: 1 },
      ],
    });
  });

  it("denies with the binding's own name, from the param the paramRef selects", async () => {
    expect(
      await admit({
        object: pod(),
        policies: [SIDECAR, ...limitPolicy({ selector: { matchLabels: { kind: 'limits' } }, parameterNotFoundAction: 'Allow' })],
        namespaces: [team({ tier: 'team' })],
        params: [{ ...limits('1'), metadata: { name: 'limits', namespace: 'team', labels: { kind: 'limits' } } }],
      }),
    ).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: `pods "web" is forbidden: ValidatingAdmissionPolicy 'container-limit' with binding 'container-limit-in-teams' denied request: at most 1 containers`,
      warnings: [],
      auditAnnotations: {},
      object: {
        ...pod([
          { name: 'app', image: 'nginx' },
          { name: 'proxy', image: 'proxy:1' },
        ]),
      },
      steps: [
        { plugin: 'MutatingAdmissionPolicy', policy: 'sidecar', binding: 'sidecar-everywhere', pass: 1 },
        { plugin: 'ValidatingAdmissionPolicy', policy: 'container-limit', binding: 'container-limit-in-teams', pass: 1 },
      ],
    });
  });

  it('applies parameterNotFoundAction when no param is found, and skips a namespace the selector leaves out', async () => {
    const base = { object: pod(), policies: limitPolicy({ name: 'limits', parameterNotFoundAction: 'Deny' }) };
    expect(await admit({ ...base, namespaces: [team({ tier: 'team' })] })).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message:
        "pods \"web\" is forbidden: ValidatingAdmissionPolicy 'container-limit' with binding 'container-limit-in-teams' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      warnings: [],
      auditAnnotations: {},
      object: pod(),
      steps: [],
    });
    expect(await admit({ ...base, namespaces: [team({})] })).toEqual({ allowed: true, code: 200, warnings: [], auditAnnotations: {}, object: pod(), steps: [] });
  });

  it('refuses an ApplyConfiguration into an atomic list, as the API server words it', async () => {
    const atomic = SIDECAR.replace('{name: "proxy", image: "proxy:1"}', '{name: "app", command: ["sh"]}');
    expect(await admit({ object: pod(), policies: [atomic] })).toEqual({
      allowed: false,
      code: 403,
      reason: 'Invalid',
      message:
        "policy 'sidecar' with binding 'sidecar-everywhere' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.containers[0].command",
      warnings: [],
      auditAnnotations: {},
      object: pod(),
      steps: [{ plugin: 'MutatingAdmissionPolicy', policy: 'sidecar', binding: 'sidecar-everywhere', pass: 1 }],
    });
  });

  it('answers a request into a namespace the test does not declare as the API server does', async () => {
    expect(await admit({ object: pod(), policies: [SIDECAR], namespaces: [] })).toEqual({
      allowed: false,
      code: 404,
      reason: 'NotFound',
      message: 'namespaces "team" not found',
      warnings: [],
      auditAnnotations: {},
      object: pod(),
      steps: [],
    });
  });
});

describe('admit, on what it cannot answer', () => {
  const authorizing = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: may-read-secrets}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
    - expression: "authorizer.group('').resource('secrets').namespace('team').check('get').allowed()"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: may-read-secrets}
spec: {policyName: may-read-secrets, validationActions: [Deny]}
`;

  it('names the authorizer check the test declares no answer for, and answers with the declared one', async () => {
    await expect(admit({ object: pod(), policies: [authorizing] })).rejects.toThrow(
      "the policy asks the authorizer about user 'test-user' verb 'get' on resource 'secrets' (group '') in namespace 'team' named '', which the test declares no answer for: add it to admit's authorizer option, e.g. authorizer: [{ verb: 'get', resource: 'secrets', decision: 'allow' }]",
    );
    expect(await admit({ object: pod(), policies: [authorizing], authorizer: [{ verb: 'get', resource: 'secrets', decision: 'allow' }] })).toEqual({
      allowed: true,
      code: 200,
      warnings: [],
      auditAnnotations: {},
      object: pod(),
      steps: [{ plugin: 'ValidatingAdmissionPolicy', policy: 'may-read-secrets', binding: 'may-read-secrets', pass: 1 }],
    });
  });

  it('refuses a policy of another API version with a one-line error saying what it takes', async () => {
    await expect(
      admit({
        object: pod(),
        policies: [SIDECAR.replace('admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\n', 'admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicy\n')],
      }),
    ).rejects.toThrow(
      'MutatingAdmissionPolicy sidecar is admissionregistration.k8s.io/v1beta1: the admission chain is evaluated over admissionregistration.k8s.io/v1 objects (render the chart for Kubernetes 1.36 or later)',
    );
  });

  it('answers a paramKind no API serves as the API server does', async () => {
    const [policy, binding] = limitPolicy({ name: 'limits', parameterNotFoundAction: 'Allow' }) as [{ spec: object }, object];
    const unknownKind = { ...policy, spec: { ...policy.spec, paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' } } };
    expect(await admit({ object: pod(), policies: [unknownKind, binding], namespaces: [team({ tier: 'team' })] })).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message:
        "pods \"web\" is forbidden: ValidatingAdmissionPolicy 'container-limit' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'",
      warnings: [],
      auditAnnotations: {},
      object: pod(),
      steps: [],
    });
  });
});

@MutatingPolicy({
  rules: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }],
  mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"scanned": "yes"}}}' } }],
})
class ScannedLabel {}

@ValidatingPolicy({
  rules: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }],
  validations: [{ expression: "object.metadata.?labels.scanned.orValue('') == 'yes' && object.spec.containers.size() == 1", message: 'one scanned container' }],
})
class OneScannedContainer {}

describe('admit with decorated classes', () => {
  it('takes them as the chart installs them, beside YAML, each binding named after its policy', async () => {
    expect(await admit({ object: pod(), policies: [ScannedLabel, OneScannedContainer, SIDECAR] })).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: `pods "web" is forbidden: ValidatingAdmissionPolicy 'one-scanned-container' with binding 'one-scanned-container' denied request: one scanned container`,
      warnings: [],
      auditAnnotations: {},
      object: {
        ...pod([
          { name: 'app', image: 'nginx' },
          { name: 'proxy', image: 'proxy:1' },
        ]),
        metadata: { name: 'web', namespace: 'team', labels: { app: 'web', scanned: 'yes' } },
      },
      steps: [
        { plugin: 'MutatingAdmissionPolicy', policy: 'scanned-label', binding: 'scanned-label', pass: 1 },
        { plugin: 'MutatingAdmissionPolicy', policy: 'sidecar', binding: 'sidecar-everywhere', pass: 1 },
        { plugin: 'ValidatingAdmissionPolicy', policy: 'one-scanned-container', binding: 'one-scanned-container', pass: 1 },
      ],
    });
  });
});

const WIDGETS = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: { type: integer, maximum: 5 }
              x-kubernetes-validations:
                - rule: "!has(self.replicas) || self.replicas != 4"
                  message: replicas must not be 4
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: scale-up
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
      - apiGroups: [example.com]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [widgets]
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: "[JSONPatch{op: 'replace', path: '/spec/replicas', value: object.spec.replicas * 4}]"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: scale-up
spec:
  policyName: scale-up
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: never
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [example.com]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [widgets]
  validations:
    - expression: "false"
      message: no widget passes
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: never
spec:
  policyName: never
  validationActions: [Deny]
`;

describe('a custom resource after mutation', () => {
  const widget = (replicas: number) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'team' }, spec: { replicas } });

  it("is refused by the CRD's rules before any validating policy runs, with the registry's 422", async () => {
    expect(await admit({ object: widget(1), policies: [WIDGETS] })).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: 'Widget.example.com "w" is invalid: spec: Invalid value: replicas must not be 4',
      warnings: [],
      auditAnnotations: {},
      object: widget(4),
      steps: [{ plugin: 'MutatingAdmissionPolicy', policy: 'scale-up', binding: 'scale-up', pass: 1 }],
    });
  });

  it("is refused by the CRD's schema too, and reaches the validating policies when valid", async () => {
    const refused = await admit({ object: widget(3), policies: [WIDGETS] });
    expect(refused.message).toBe('Widget.example.com "w" is invalid: spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 5');
    expect(await admit({ object: widget(0), policies: [WIDGETS] })).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: `widgets.example.com "w" is forbidden: ValidatingAdmissionPolicy 'never' with binding 'never' denied request: no widget passes`,
      warnings: [],
      auditAnnotations: {},
      object: widget(0),
      steps: [
        { plugin: 'MutatingAdmissionPolicy', policy: 'scale-up', binding: 'scale-up', pass: 1 },
        { plugin: 'ValidatingAdmissionPolicy', policy: 'never', binding: 'never', pass: 1 },
      ],
    });
  });
});
