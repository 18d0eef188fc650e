/**
 * The CRDs of the CRD differential: one with a schema of every kind of field
 * and rule (gadgets), one whose schema is tightened after objects are stored
 * (ratchets: the loose and the strict version), and a cluster-scoped kind
 * served in three versions with their own defaults and deprecations (dials).
 * The sample's Profile and Assignment come from its chart.
 */
export const GROUP = 'crd-diff.shaper-gen.io';

type Schema = Record<string, unknown>;

function crd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster', versions: object[]) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: { group: GROUP, names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() }, scope, versions },
  };
}

const str = (extra: Schema = {}): Schema => ({ type: 'string', maxLength: 64, ...extra });

const GADGET_SPEC: Schema = {
  type: 'object',
  required: ['mode'],
  'x-kubernetes-validations': [
    { rule: 'self.minReplicas <= self.replicas', messageExpression: "'replicas below minReplicas in ' + self.mode + ' mode'", reason: 'FieldValueInvalid', fieldPath: '.replicas' },
    { rule: "self.mode != 'off' || self.replicas == 0", message: 'an off gadget runs no replicas', reason: 'FieldValueForbidden' },
  ],
  properties: {
    replicas: { type: 'integer', default: 1, minimum: 0, maximum: 100 },
    minReplicas: { type: 'integer', default: 0 },
    mode: { type: 'string', enum: ['fast', 'safe', 'off'], default: 'safe' },
    ratio: { type: 'number', minimum: 0, maximum: 1, exclusiveMaximum: true },
    step: { type: 'integer', multipleOf: 5 },
    label: str({ pattern: '^[a-z][a-z0-9-]*$', minLength: 2, maxLength: 12 }),
    email: str({ format: 'email' }),
    site: str({ format: 'uri' }),
    when: str({ format: 'date-time' }),
    day: str({ format: 'date' }),
    uid: str({ format: 'uuid' }),
    ip: str({ format: 'ipv4' }),
    ip6: str({ format: 'ipv6' }),
    cidr: str({ format: 'cidr' }),
    host: str({ format: 'hostname' }),
    mac: str({ format: 'mac' }),
    blob: str({ format: 'byte' }),
    timeout: str({ format: 'duration' }),
    size: { type: 'integer', format: 'int32' },
    port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], default: 8080 },
    tags: { type: 'array', maxItems: 3, 'x-kubernetes-list-type': 'set', items: str({ maxLength: 10 }) },
    ports: {
      type: 'array',
      maxItems: 8,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'protocol'],
      items: { type: 'object', required: ['name'], properties: { name: str(), protocol: str({ default: 'TCP' }), number: { type: 'integer', default: 80 } } },
    },
    labels: { type: 'object', maxProperties: 3, additionalProperties: str({ maxLength: 20 }) },
    settings: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    nested: { type: 'object', default: {}, properties: { level: { type: 'integer', default: 3 }, note: { type: 'string', nullable: true } } },
    limits: {
      type: 'object',
      'x-kubernetes-validations': [{ rule: '!has(self.max) || !has(self.min) || self.min <= self.max', message: 'min must not exceed max' }],
      properties: { min: { type: 'integer' }, max: { type: 'integer' } },
    },
    access: { type: 'object', required: ['role'], properties: { role: str({ enum: ['viewer', 'editor'] }), until: str({ format: 'date' }) } },
    owner: str({ maxLength: 20, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'owner is immutable' }] }),
    stage: str({
      maxLength: 10,
      'x-kubernetes-validations': [
        {
          rule: "oldSelf.hasValue() ? (oldSelf.value() != 'done' || self == 'done') : self in ['new', 'done']",
          optionalOldSelf: true,
          message: 'a stage starts at new or done, and done is final',
        },
      ],
    }),
    counter: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'counter may only grow', reason: 'FieldValueForbidden' }] },
    entries: {
      type: 'array',
      maxItems: 5,
      'x-kubernetes-validations': [{ rule: "self.all(e, e.key != '')", message: 'keys must not be empty', reason: 'FieldValueRequired' }],
      items: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.value >= 0', messageExpression: "'value of ' + self.key + ' must not be negative'" }],
        properties: { key: str({ maxLength: 8 }), value: { type: 'integer', default: 0 } },
      },
    },
  },
};

const GADGET_STATUS: Schema = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: '!has(self.observed) || self.observed < 1000', message: 'observed too large' }],
  properties: { phase: str({ enum: ['Pending', 'Ready'] }), observed: { type: 'integer', minimum: 0 } },
};

export const GADGETS = crd('gadgets', 'Gadget', 'Namespaced', [
  {
    name: 'v1',
    served: true,
    storage: true,
    subresources: { status: {} },
    schema: {
      openAPIV3Schema: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.metadata.name.size() <= 20', message: 'a gadget name has at most 20 characters' }],
        properties: { spec: GADGET_SPEC, status: GADGET_STATUS },
      },
    },
  },
]);

const ratchetSpec = (strict: boolean): Schema => ({
  type: 'object',
  ...(strict && { 'x-kubernetes-validations': [{ rule: 'self.low <= self.high', message: 'low must not exceed high' }] }),
  properties: {
    code: str(strict ? { pattern: '^[A-Z]{3}$' } : {}),
    level: str(strict ? { enum: ['low', 'high'] } : {}),
    count: { type: 'integer', ...(strict && { maximum: 10 }) },
    low: { type: 'integer', default: 0 },
    high: { type: 'integer', default: 10 },
    note: str(strict ? { maxLength: 5 } : {}),
    items: {
      type: 'array',
      maxItems: 10,
      ...(strict && { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
      items: { type: 'object', required: ['name'], properties: { name: str(), weight: { type: 'integer', ...(strict && { minimum: 1 }) } } },
    },
    other: str(),
  },
});

export const ratchets = (strict: boolean) =>
  crd('ratchets', 'Ratchet', 'Namespaced', [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: ratchetSpec(strict) } } } }]);

const dialSchema = (defaultMode: string, extra: Schema = {}): Schema => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { mode: str({ default: defaultMode }), level: { type: 'integer', minimum: 0, maximum: 10, default: 5 }, ...extra },
    },
  },
});

export const DIALS = crd('dials', 'Dial', 'Cluster', [
  { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: dialSchema('modern') } },
  { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: dialSchema('legacy', { legacyKnob: str() }) } },
  { name: 'v1alpha1', served: true, storage: false, deprecated: true, deprecationWarning: 'dials v1alpha1 goes away in 2027; use v1', schema: { openAPIV3Schema: dialSchema('ancient') } },
]);
