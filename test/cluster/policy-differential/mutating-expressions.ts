/**
 * CEL in a mutation, judged twice: by `shaper-gen manifests`' compile as the
 * API server compiles it and by the API server when a MutatingAdmissionPolicy
 * holding it is created (dry run). The two must agree.
 */
import type { PatchType } from '../../../runtime/policy/options/mutating-policy-types.js';

export interface MutationExpressionCase {
  readonly patchType: PatchType;
  readonly expression: string;
}

const applyConfiguration = (expression: string): MutationExpressionCase => ({ patchType: 'ApplyConfiguration', expression });
const jsonPatch = (expression: string): MutationExpressionCase => ({ patchType: 'JSONPatch', expression });

export const MUTATION_EXPRESSION_CASES: readonly MutationExpressionCase[] = [
  applyConfiguration('Object{}'),
  applyConfiguration('Object{spec: Object.spec{replicas: 3}}'),
  applyConfiguration("Object{metadata: Object.metadata{labels: {'a': 'b'}}}"),
  applyConfiguration("Object{metadata: Object.metadata{labels: {'a': 'b', 'c': object.metadata.name}}}"),
  applyConfiguration("Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'x', image: 'y'}]}}}}"),
  applyConfiguration("Object{spec: Object.spec{replicas: 3, paused: true, name: 'x'}}"),
  applyConfiguration('object.spec.replicas > 1 ? Object{spec: Object.spec{replicas: 1}} : Object{}'),
  applyConfiguration('Object{spec: Object.spec{replicas: object.spec.replicas + 1}}'),
  applyConfiguration('object'),
  applyConfiguration("{'spec': {'replicas': 1}}"),
  applyConfiguration('Widget{spec: 1}'),
  applyConfiguration('Object{spec: Object.spec{replicas: 1, replicas: 2}}'),
  applyConfiguration('Object{spec: Object.spec{replicas: }}'),
  applyConfiguration("[JSONPatch{op: 'add', path: '/x', value: 1}]"),
  applyConfiguration("Object{metadata: Object.metadata{labels: {'a': 1, 'b': 'c'}}}"),
  applyConfiguration('Object{spec: Object.spec{x: [1, 2, 3]}}'),
  applyConfiguration("Object{spec: Object.spec{x: {'a': 1}}}"),
  jsonPatch('[]'),
  jsonPatch("[JSONPatch{op: 'add', path: '/metadata/labels/a', value: 'b'}]"),
  jsonPatch("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/a'), value: 'b'}]"),
  jsonPatch("[JSONPatch{op: 'remove', path: '/spec/replicas'}, JSONPatch{op: 'add', path: '/spec/paused', value: true}]"),
  jsonPatch("[JSONPatch{op: 'copy', from: '/spec/a', path: '/spec/b'}]"),
  jsonPatch("object.spec.replicas > 1 ? [JSONPatch{op: 'replace', path: '/spec/replicas', value: 1}] : []"),
  jsonPatch("[JSONPatch{op: 'add', path: '/spec/template', value: Object.spec.template{metadata: Object.spec.template.metadata{}}}]"),
  jsonPatch("JSONPatch{op: 'add', path: '/x', value: 1}"),
  jsonPatch("[JSONPatch{op: 'add', pth: '/x'}]"),
  jsonPatch("[JSONPatch{op: 1, path: '/x'}]"),
  jsonPatch("[JSONPatch{op: 'add', path: 2}]"),
  jsonPatch("[{'op': 'add', 'path': '/x', 'value': 1}]"),
  jsonPatch("[JSONPatch{op: 'add', path: '/x', value: 1}, 'x']"),
  jsonPatch('jsonpatch.escapeKey(1)'),
  jsonPatch("[JSONPatch{op: 'add', path: '/x/' + jsonpatch.escapeKey(object.metadata.name), value: object.spec}]"),
  jsonPatch("object.spec.containers.map(c, JSONPatch{op: 'add', path: '/x', value: c.name})"),
  jsonPatch('Object{}'),
];
