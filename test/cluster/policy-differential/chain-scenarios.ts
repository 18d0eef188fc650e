/**
 * The admission chain differential's scenarios: each a set of policies and
 * bindings (YAML, as a user or a chart writes them), the params they select
 * and the requests sent through them — to the API server and through `admit`.
 * Scenarios are installed one at a time. The API server runs matching
 * policies in an order it does not define (its policy source gathers them
 * from a map), so where several mutate one object the scenarios keep the
 * result independent of the order, as reinvocation makes it.
 */

export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface ChainRequest {
  readonly id: string;
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly object: Obj;
}

export interface ChainScenario {
  readonly name: string;
  /** Multi-document YAML: policies and bindings. */
  readonly yaml: string;
  /** Created before the policies, in the scenario's namespaces. */
  readonly params: readonly Obj[];
  readonly requests: readonly ChainRequest[];
  /** Installed with the cluster; given to `admit` among the policies (their schemas merge ApplyConfigurations). */
  readonly crds?: readonly Obj[];
}

/** The namespaces every scenario's requests go to, with the labels namespaceSelectors read. */
export const CHAIN_NAMESPACES: Readonly<Record<string, Record<string, string>>> = {
  'chain-prod': { env: 'prod', tier: 'team' },
  'chain-dev': { env: 'dev', tier: 'team' },
  'chain-system': { env: 'prod', tier: 'system' },
  'chain-bare': {},
};
const NAMESPACES = Object.keys(CHAIN_NAMESPACES);

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };

const configMap = (name: string, namespace: string, labels: Record<string, string>, data: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
  data,
});

const rules = (resource: string, group = '') => `
    resourceRules:
      - apiGroups: ["${group}"]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [${resource}]`;

/** Every request of a list of label sets and data in every namespace: one case each. */
function configMapRequests(prefix: string, variants: readonly { labels: Record<string, string>; data?: Record<string, string> }[]): ChainRequest[] {
  return NAMESPACES.flatMap((namespace) =>
    variants.map((variant, index) => ({ id: `${prefix}-${namespace}-${index}`, resource: CONFIGMAPS, object: configMap(`${prefix}-${index}`, namespace, variant.labels, variant.data) })),
  );
}

const paramsNotFound: ChainScenario = {
  name: 'params-not-found',
  yaml: ['Deny', 'Allow']
    .flatMap((action) =>
      ['Fail', 'Ignore'].map(
        (failure) => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: chain-missing-${action.toLowerCase()}-${failure.toLowerCase()}
spec:
  failurePolicy: ${failure}
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:${rules('configmaps')}
  validations:
    - expression: "params == null || object.data.size() <= int(params.data.max)"
      messageExpression: "'at most ' + params.data.max + ' keys'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-missing-${action.toLowerCase()}-${failure.toLowerCase()}-binding
spec:
  policyName: chain-missing-${action.toLowerCase()}-${failure.toLowerCase()}
  validationActions: [Deny]
  paramRef:
    name: chain-limits
    parameterNotFoundAction: ${action}
  matchResources:
    objectSelector:
      matchLabels: {action: ${action.toLowerCase()}, failure: ${failure.toLowerCase()}}
`,
      ),
    )
    .join('---'),
  // Only chain-prod and chain-system have the param.
  params: ['chain-prod', 'chain-system'].map((namespace) => configMap('chain-limits', namespace, {}, { max: '1' })),
  requests: configMapRequests(
    'missing',
    ['deny', 'allow'].flatMap((action) => ['fail', 'ignore'].flatMap((failure) => [{ labels: { action, failure } }, { labels: { action, failure }, data: { a: '1', b: '2' } }])),
  ),
};

const paramSelection: ChainScenario = {
  name: 'param-selection',
  yaml: `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: chain-allowed-keys
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:${rules('configmaps')}
  validations:
    - expression: "params == null || object.data.all(k, k in params.data)"
      messageExpression: "'key not allowed by ' + params.metadata.name"
      reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-by-name
spec:
  policyName: chain-allowed-keys
  validationActions: [Deny]
  paramRef: {name: chain-keys-a, parameterNotFoundAction: Allow}
  matchResources:
    objectSelector: {matchLabels: {select: name}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-by-name-elsewhere
spec:
  policyName: chain-allowed-keys
  validationActions: [Deny]
  paramRef: {name: chain-keys-a, namespace: chain-prod, parameterNotFoundAction: Deny}
  matchResources:
    objectSelector: {matchLabels: {select: elsewhere}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-by-selector
spec:
  policyName: chain-allowed-keys
  validationActions: [Warn, Audit]
  paramRef:
    selector: {matchLabels: {keys: allowed}}
    parameterNotFoundAction: Deny
  matchResources:
    objectSelector: {matchLabels: {select: selector}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-no-param-ref
spec:
  policyName: chain-allowed-keys
  validationActions: [Deny]
  matchResources:
    objectSelector: {matchLabels: {select: none}}
`,
  params: [
    configMap('chain-keys-a', 'chain-prod', { keys: 'allowed' }, { a: '', shared: '' }),
    configMap('chain-keys-a', 'chain-dev', {}, { a: '' }),
    configMap('chain-keys-b', 'chain-dev', { keys: 'allowed' }, { b: '', shared: '' }),
    configMap('chain-keys-c', 'chain-system', { keys: 'other' }, { c: '' }),
  ],
  requests: configMapRequests(
    'select',
    ['name', 'elsewhere', 'selector', 'none'].flatMap((select) => ['a', 'shared', 'zzz'].map((key) => ({ labels: { select }, data: { [key]: '1' } }))),
  ),
};

const namespaceSelectors: ChainScenario = {
  name: 'namespace-selectors',
  yaml: `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: chain-prod-needs-owner
spec:
  matchConstraints:${rules('configmaps')}
    namespaceSelector:
      matchExpressions:
        - {key: env, operator: In, values: [prod]}
  validations:
    - expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels"
      message: prod objects need an owner label
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-prod-needs-owner-teams
spec:
  policyName: chain-prod-needs-owner
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchExpressions:
        - {key: tier, operator: NotIn, values: [system]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-prod-needs-owner-warn
spec:
  policyName: chain-prod-needs-owner
  validationActions: [Warn]
  matchResources:
    namespaceSelector:
      matchLabels: {tier: system}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-label-unlabelled-namespaces
spec:
  reinvocationPolicy: Never
  matchConstraints:${rules('configmaps')}
    namespaceSelector:
      matchExpressions:
        - {key: env, operator: DoesNotExist}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"namespace-env": namespaceObject.metadata.?labels.env.orValue("none")}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-label-unlabelled-namespaces
spec:
  policyName: chain-label-unlabelled-namespaces
`,
  params: [],
  requests: configMapRequests('ns', [{ labels: {} }, { labels: { owner: 'me' } }, { labels: { other: 'x' } }]),
};

/** IfNeeded policies whose result does not depend on the order they run in: reinvocation settles it. */
const reinvocation: ChainScenario = {
  name: 'reinvocation',
  yaml: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-count-labels
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:${rules('configmaps')}
  variables:
    - name: colours
      expression: "object.metadata.?labels.orValue({}).filter(k, k.startsWith('colour-')).size()"
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{annotations: {"colours": string(variables.colours)}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-count-labels
spec:
  policyName: chain-count-labels
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-add-red
spec:
  reinvocationPolicy: Never
  matchConstraints:${rules('configmaps')}
  matchConditions:
    - name: wants-red
      expression: "object.metadata.?labels.red.orValue('') == 'yes'"
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: '[JSONPatch{op: "add", path: "/metadata/labels/colour-red", value: "1"}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-add-red
spec:
  policyName: chain-add-red
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-add-blue
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:${rules('configmaps')}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'object.metadata.?labels.blue.orValue("") == "yes" ? Object{metadata: Object.metadata{labels: {"colour-blue": "1"}}} : Object{}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-add-blue
spec:
  policyName: chain-add-blue
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: chain-at-most-one-colour
spec:
  matchConstraints:${rules('configmaps')}
  validations:
    - expression: "int(object.metadata.annotations.colours) <= 1"
      messageExpression: "'too many colours: ' + object.metadata.annotations.colours"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-at-most-one-colour
spec:
  policyName: chain-at-most-one-colour
  validationActions: [Deny]
`,
  params: [],
  requests: configMapRequests('colours', [
    { labels: {} },
    { labels: { red: 'yes' } },
    { labels: { blue: 'yes' } },
    { labels: { red: 'yes', blue: 'yes' } },
    { labels: { 'colour-green': '1' } },
    { labels: { 'colour-green': '1', red: 'yes' } },
  ]),
};

const SIDECAR_CONTAINER =
  'Object.spec.containers{name: "proxy", image: "proxy:1.0", imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", resources: Object.spec.containers.resources{}}';

const builtinApply: ChainScenario = {
  name: 'builtin-apply-configuration',
  yaml: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-sidecar
spec:
  reinvocationPolicy: Never
  matchConstraints:${rules('pods')}
  matchConditions:
    - name: not-yet
      expression: "!object.spec.containers.exists(c, c.name == 'proxy')"
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{spec: Object.spec{containers: [${SIDECAR_CONTAINER}]}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-sidecar-binding
spec:
  policyName: chain-sidecar
  matchResources:
    objectSelector: {matchLabels: {mesh: "on"}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-atomic-command
spec:
  reinvocationPolicy: Never
  matchConstraints:${rules('pods')}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", args: ["--quiet"]}]}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-atomic-command-binding
spec:
  policyName: chain-atomic-command
  matchResources:
    objectSelector: {matchLabels: {args: quiet}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-template-label
spec:
  reinvocationPolicy: Never
  matchConstraints:${rules('deployments', 'apps')}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"team": namespaceObject.metadata.name}}}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-template-label-binding
spec:
  policyName: chain-template-label
`,
  params: [],
  requests: NAMESPACES.flatMap((namespace) => [
    ...([{}, { mesh: 'on' }, { args: 'quiet' }, { mesh: 'on', args: 'quiet' }] as Record<string, string>[]).map((labels, index) => ({
      id: `pod-${namespace}-${index}`,
      resource: PODS,
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `pod-${index}`, namespace, labels: { app: 'web', ...labels } },
        spec: { automountServiceAccountToken: false, containers: [{ name: 'app', image: 'nginx:1.27', ...(index > 1 && { args: ['--verbose'] }) }] },
      },
    })),
    ...([{}, { team: 'someone-else' }] as Record<string, string>[]).map((labels, index) => ({
      id: `deployment-${namespace}-${index}`,
      resource: DEPLOYMENTS,
      object: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: `deployment-${index}`, namespace },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web', ...labels } }, spec: { automountServiceAccountToken: false, containers: [{ name: 'app', image: 'nginx:1.27' }] } },
        },
      },
    })),
  ]),
};

/** A namespaced CRD of the test group with one version, v1, whose `spec` has the given schema. */
function chainCrd(kind: string, plural: string, spec: object): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.chain-test.shaper-gen.io` },
    spec: {
      group: 'chain-test.shaper-gen.io',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

const WIDGET_CRD = chainCrd('Widget', 'widgets', {
  type: 'object',
  properties: {
    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
    },
    args: { type: 'array', items: { type: 'string' } },
    settings: { type: 'object', additionalProperties: { type: 'string' } },
    owner: { type: 'object', properties: { team: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' },
  },
});

const WIDGETS = { group: 'chain-test.shaper-gen.io', version: 'v1', resource: 'widgets' };

const crdApply: ChainScenario = {
  name: 'crd-apply-configuration',
  crds: [WIDGET_CRD],
  yaml: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-widget-defaults
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:${rules('widgets', 'chain-test.shaper-gen.io')}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{spec: Object.spec{tags: ['managed'], ports: [Object.spec.ports{name: 'metrics', port: 9090}], settings: {'namespace': namespaceObject.metadata.name}}}"
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "object.metadata.name.startsWith('args-') ? Object{spec: Object.spec{args: ['--quiet']}} : Object{}"
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "object.metadata.name.startsWith('owned-') ? Object{spec: Object.spec{owner: Object.spec.owner{team: 'platform'}}} : Object{}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-widget-defaults-binding
spec:
  policyName: chain-widget-defaults
`,
  params: [],
  requests: NAMESPACES.flatMap((namespace) =>
    [
      ['plain', {}],
      [
        'tagged',
        {
          tags: ['a', 'managed'],
          ports: [
            { name: 'http', port: 80 },
            { name: 'metrics', port: 1 },
          ],
        },
      ],
      ['args-a', { args: ['--verbose'] }],
      ['owned-a', { owner: { team: 'web' } }],
    ].map(([name, spec]) => ({
      id: `widget-${namespace}-${name as string}`,
      resource: WIDGETS,
      object: { apiVersion: 'chain-test.shaper-gen.io/v1', kind: 'Widget', metadata: { name: name as string, namespace }, spec },
    })),
  ),
};

const GAUGE_CRD = chainCrd('Gauge', 'gauges', {
  type: 'object',
  properties: { level: { type: 'integer', maximum: 5 } },
  'x-kubernetes-validations': [{ rule: '!has(self.level) || self.level != 4', message: 'level 4 is reserved', reason: 'FieldValueForbidden', fieldPath: '.level' }],
});

const GAUGES = { group: 'chain-test.shaper-gen.io', version: 'v1', resource: 'gauges' };

/** An object a mutation makes invalid is refused by the CRD's schema and rules (the registry's 422) before any validating policy. */
const postMutationValidation: ChainScenario = {
  name: 'post-mutation-validation',
  crds: [GAUGE_CRD],
  yaml: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: chain-gauge-double
spec:
  reinvocationPolicy: Never
  matchConstraints:${rules('gauges', 'chain-test.shaper-gen.io')}
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: "[JSONPatch{op: 'replace', path: '/spec/level', value: object.spec.level * 2}]"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: chain-gauge-double-binding
spec:
  policyName: chain-gauge-double
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: chain-gauge-names
spec:
  matchConstraints:${rules('gauges', 'chain-test.shaper-gen.io')}
  validations:
    - expression: "!object.metadata.name.startsWith('deny-')"
      message: deny- names are refused
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: chain-gauge-names-binding
spec:
  policyName: chain-gauge-names
  validationActions: [Deny]
`,
  params: [],
  requests: NAMESPACES.flatMap((namespace) =>
    (
      [
        ['valid', 1],
        ['over-maximum', 3],
        ['reserved', 2],
        ['deny-valid', 0],
        ['deny-over-maximum', 5],
      ] as const
    ).map(([name, level]) => ({
      id: `gauge-${namespace}-${name}`,
      resource: GAUGES,
      object: { apiVersion: 'chain-test.shaper-gen.io/v1', kind: 'Gauge', metadata: { name, namespace }, spec: { level } },
    })),
  ),
};

export const CHAIN_SCENARIOS: readonly ChainScenario[] = [paramsNotFound, paramSelection, namespaceSelectors, reinvocation, builtinApply, crdApply, postMutationValidation];
