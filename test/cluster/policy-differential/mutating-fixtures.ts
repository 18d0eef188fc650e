/**
 * Mutating policies beside the sample's, each exercising what the sample does
 * not: both patch types, mutations in order, JSON Patch's `replace` of a
 * missing key, a failed `test`, patch errors and CEL errors under both
 * failure policies, a matchCondition that errors, variables, server-side
 * apply's merge of granular maps and its refusal of atomic structs. Each is
 * confined to its own namespace (the MUTATING_FIXTURE_LABEL selector), so
 * that a request meets one of them at most, beside the sample's policy on
 * Assignments, which changes other fields.
 */
import { MutatingPolicy } from 'shaper-gen';

export const MUTATING_FIXTURE_LABEL = 'mutating-test.shaper-gen.io/fixture';
const CONFIGMAPS = { groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] } as const;
const PROFILES = { groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE', 'UPDATE'] } as const;
const ASSIGNMENTS = { groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['assignments'], operations: ['CREATE', 'UPDATE'] } as const;

@MutatingPolicy({
  name: 'cm-apply.mutating-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { [MUTATING_FIXTURE_LABEL]: 'cm-apply' } },
  matchConditions: [{ name: 'not-skipped', expression: "!has(object.data) || !('skip' in object.data)" }],
  variables: [{ name: 'owner', expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels ? object.metadata.labels.owner : 'nobody'" }],
  mutations: [
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: {
        expression: "Object{metadata: Object.metadata{labels: {'managed-by': 'shaper', 'owner': string(variables.owner)}, finalizers: ['example.com/keep', 'example.com/audit']}}",
      },
    },
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: {
        expression: "Object{data: {'defaulted': string(has(object.data) && 'mode' in object.data ? object.data.mode : 'none'), 'count': string(size(object.metadata.labels))}}",
      },
    },
  ],
})
export class ConfigMapApply {}

@MutatingPolicy({
  name: 'cm-jsonpatch.mutating-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { [MUTATING_FIXTURE_LABEL]: 'cm-jsonpatch' } },
  mutations: [
    { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'example.com/by': request.userInfo.username}}]" } },
    { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'replace', path: '/data/mode', value: 'default'}]" } },
    {
      patchType: 'JSONPatch',
      jsonPatch: {
        expression:
          "'lock' in object.data ? [JSONPatch{op: 'test', path: '/data/lock', value: 'open'}, JSONPatch{op: 'remove', path: '/data/lock'}, JSONPatch{op: 'add', path: '/data/unlocked', value: 'yes'}] : []",
      },
    },
    {
      patchType: 'JSONPatch',
      jsonPatch: { expression: "object.metadata.name.startsWith('rm-') ? [JSONPatch{op: 'remove', path: '/data/' + jsonpatch.escapeKey('not/there')}] : []" },
    },
    {
      patchType: 'JSONPatch',
      jsonPatch: {
        expression:
          "object.metadata.name.startsWith('mv-') ? [JSONPatch{op: 'copy', from: '/data/mode', path: '/data/mode-copy'}, JSONPatch{op: 'move', from: '/data/mode', path: '/metadata/labels/mode'}] : []",
      },
    },
  ],
})
export class ConfigMapJsonPatch {}

@MutatingPolicy({
  name: 'cm-ignore.mutating-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { [MUTATING_FIXTURE_LABEL]: 'cm-ignore' } },
  failurePolicy: 'Ignore',
  mutations: [
    { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/data/n', value: string(int(object.data.n) + 1)}]" } },
    { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'seen': 'yes'}}]" } },
    { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'replace', path: '/data/mode', value: 'default'}]" } },
  ],
})
export class ConfigMapIgnore {}

@MutatingPolicy({
  name: 'profile-apply.mutating-test.shaper-gen.io',
  rules: [PROFILES],
  namespaceSelector: { matchLabels: { [MUTATING_FIXTURE_LABEL]: 'profile-apply' } },
  matchConditions: [
    { name: 'has-tier', expression: 'has(object.spec.tier)' },
    { name: 'priority-known', expression: 'object.spec.priority >= 0' },
  ],
  mutations: [
    { patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'shaper.io/tier': object.spec.tier}}}" } },
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: {
        expression:
          "has(object.spec.description) ? Object{} : Object{spec: Object.spec{description: 'a ' + object.spec.tier + ' Profile at ' + string(object.spec.priority) + ' for ' + object.metadata.labels['shaper.io/tier']}}",
      },
    },
    { patchType: 'JSONPatch', jsonPatch: { expression: "object.spec.priority > 900 ? [JSONPatch{op: 'replace', path: '/spec/priority', value: 900}] : []" } },
  ],
})
export class ProfileApply {}

@MutatingPolicy({
  name: 'assignment-weight.mutating-test.shaper-gen.io',
  rules: [ASSIGNMENTS],
  namespaceSelector: { matchLabels: { [MUTATING_FIXTURE_LABEL]: 'assignment-weight' } },
  mutations: [
    { patchType: 'JSONPatch', jsonPatch: { expression: "has(object.spec.weight) ? [] : [JSONPatch{op: 'add', path: '/spec/weight', value: 50}]" } },
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: {
        expression: "object.metadata.name.startsWith('atomic-') ? Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {'app': 'web'}}}} : Object{}",
      },
    },
  ],
})
export class AssignmentWeight {}

/** A custom resource of the test's own with the list types the sample's CRDs lack (set, map, atomic), for server-side apply's merge. */
export const GADGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.mutating-test.shaper-gen.io' },
  spec: {
    group: 'mutating-test.shaper-gen.io',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' }, protocol: { type: 'string' } } },
                  },
                  args: { type: 'array', items: { type: 'string' } },
                  settings: { type: 'object', additionalProperties: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    ],
  },
};

@MutatingPolicy({
  name: 'gadget-merge.mutating-test.shaper-gen.io',
  rules: [{ groups: ['mutating-test.shaper-gen.io'], versions: ['v1'], resources: ['gadgets'], operations: ['CREATE', 'UPDATE'] }],
  mutations: [
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: {
        expression:
          "Object{spec: Object.spec{tags: ['b', 'c'], ports: [Object.spec.ports{name: 'http', port: 8080}, Object.spec.ports{name: 'metrics', port: 9090}], settings: {'mode': 'merged'}}}",
      },
    },
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: { expression: "object.metadata.name.startsWith('args-') ? Object{spec: Object.spec{args: ['--x']}} : Object{}" },
    },
  ],
})
export class GadgetMerge {}

export const MUTATING_FIXTURES = [ConfigMapApply, ConfigMapJsonPatch, ConfigMapIgnore, ProfileApply, AssignmentWeight, GadgetMerge];
export const MUTATING_FIXTURE_NAMESPACES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'cm-apply': { [MUTATING_FIXTURE_LABEL]: 'cm-apply' },
  'cm-jsonpatch': { [MUTATING_FIXTURE_LABEL]: 'cm-jsonpatch' },
  'cm-ignore': { [MUTATING_FIXTURE_LABEL]: 'cm-ignore' },
  'profile-apply': { [MUTATING_FIXTURE_LABEL]: 'profile-apply' },
  'assignment-weight': { [MUTATING_FIXTURE_LABEL]: 'assignment-weight' },
  assignments: {},
  gadgets: {},
};
