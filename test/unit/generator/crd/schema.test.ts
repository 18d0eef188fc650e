/**
 * TypeScript types to CRDs: the schema every kind of field maps to, the
 * sample's kinds, enum order, versions of one kind. Each expectation is the
 * complete object.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanCustomResources } from '../../../../generator/src/crd/generate.js';
import { GAUGE, WIDGET } from '../../../support/crd-fixture-sources.js';
import { REPO_ROOT } from '../../../support/fixture-project.js';
import { scanProject } from './fixture.js';

const removals: (() => void)[] = [];
afterAll(() => {
  for (const remove of removals) remove();
});
function scan(files: Record<string, string>) {
  const result = scanProject(files);
  removals.push(() => result.project.remove());
  return result;
}

describe('a kind with every kind of field', () => {
  it('maps to this CRD', () => {
    const { crds, messages } = scan({ 'src/api/widget.ts': WIDGET });
    expect(messages).toEqual([]);
    const name = { type: 'string', description: 'A lower-case name.', pattern: '^[a-z]+$', maxLength: 20 };
    const intOrString = { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
    expect(crds).toEqual([
      {
        name: 'widgets.example.com',
        group: 'example.com',
        scope: 'Cluster',
        names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget', shortNames: ['wd', 'wdg'], categories: ['all', 'things'] },
        sources: ['src/api/widget.ts'],
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            deprecated: false,
            deprecationWarning: undefined,
            status: true,
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
            printerColumns: [
              { name: 'Size', type: 'string', jsonPath: '.spec.size', description: 'The size, small to large', priority: 1 },
              { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
            ],
            selectableFields: [{ jsonPath: '.spec.size' }],
            schema: {
              type: 'object',
              description: "A widget: the fixture's kind.",
              required: ['spec'],
              'x-kubernetes-validations': [{ rule: "self.spec.size != 'large' || has(self.spec.ports)", message: 'a large widget needs ports' }],
              properties: {
                apiVersion: { type: 'string', description: 'The API group and version of this object: example.com/v1.' },
                kind: { type: 'string', description: 'The kind of this object: Widget.' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    aliases: { type: 'array', items: name, 'x-kubernetes-list-type': 'set', maxItems: 5 },
                    comment: {
                      type: 'string',
                      description: 'Free text.',
                      'x-kubernetes-validations': [
                        { rule: 'self.size() <= 100', message: 'too long' },
                        { rule: "!self.contains('{{')", messageExpression: "'no templates in ' + self" },
                      ],
                    },
                    enabled: { type: 'boolean' },
                    extra: { 'x-kubernetes-preserve-unknown-fields': true },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    levels: { type: 'array', items: { type: 'integer', enum: [1, 2, 3] } },
                    limits: { type: 'object', additionalProperties: intOrString },
                    matrix: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
                    meta: { type: 'object' },
                    mode: { type: 'string', description: 'How a widget runs.', enum: ['safe', 'fast'] },
                    nicknames: { type: 'array', items: name, maxItems: 3 },
                    note: { type: 'string', nullable: true },
                    owners: { type: 'array', items: name },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: {
                        type: 'object',
                        description: 'A port a widget listens on.',
                        required: ['name', 'port'],
                        properties: {
                          name: { ...name, description: "The port's name, unique in the list." },
                          port: { type: 'integer' },
                          protocol: { type: 'string', enum: ['TCP', 'UDP'] },
                        },
                      },
                    },
                    quota: intOrString,
                    ratio: { type: 'number', minimum: 0, exclusiveMinimum: true },
                    replicas: { type: 'integer', description: 'Copies to run.', minimum: 0, maximum: 10, default: 1 },
                    settings: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    size: { type: 'string', description: 'How big.', enum: ['small', 'medium', 'large'] },
                    teams: { type: 'object', additionalProperties: name },
                    template: {
                      type: 'object',
                      description: 'Any Kubernetes object as it arrives in an AdmissionReview.',
                      'x-kubernetes-embedded-resource': true,
                      'x-kubernetes-preserve-unknown-fields': true,
                      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' } },
                    },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
              },
            },
          },
        ],
      },
    ]);
  });
});

describe('the markers the widget does not use', () => {
  it('write their keywords: multipleOf, exclusiveMaximum, format, minLength, minItems, min/maxProperties, mapType, nullable, preserveUnknownFields, enum, and every key of validation', () => {
    const { crds, messages } = scan({
      'src/api/gauge.ts': GAUGE,
    });
    expect(messages).toEqual([]);
    expect(crds[0]!.name).toBe('gaugez.example.com');
    expect(crds[0]!.names.singular).toBe('gauge-one');
    expect(crds[0]!.versions[0]!.printerColumns).toEqual([{ name: 'When', type: 'date', jsonPath: '.spec.when', format: 'date-time' }]);
    expect(crds[0]!.versions[0]!.schema.properties!.spec!.properties).toEqual({
      step: { type: 'number', multipleOf: 0.5, maximum: 10, exclusiveMaximum: true },
      when: { type: 'string', format: 'date-time' },
      code: { type: 'string', minLength: 1, enum: ['a b', 'c', 'd'] },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, 'x-kubernetes-list-type': 'atomic' },
      weights: { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 1, maxProperties: 3, 'x-kubernetes-map-type': 'granular' },
      limits: { type: 'object', properties: { cpu: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' },
      maybe: { type: 'string', nullable: true },
      open: { type: 'object', properties: { known: { type: 'string' } }, 'x-kubernetes-preserve-unknown-fields': true },
      fixed: {
        type: 'object',
        properties: { x: { type: 'string' } },
        'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() || oldSelf.value() == self', message: 'immutable', reason: 'FieldValueForbidden', fieldPath: '.x', optionalOldSelf: true }],
      },
    });
  });
});

describe("the sample's kinds (sample/api/)", () => {
  const scanned = scanCustomResources(
    path.join(REPO_ROOT, 'tsconfig.json'),
    ['assignment.ts', 'group.ts', 'profile.ts', 'quantity.ts'].map((file) => path.join(REPO_ROOT, 'sample/api', file)),
    REPO_ROOT,
  );

  it('are Assignment and Profile in shaper.io/v1alpha1, with no problem', () => {
    expect(scanned.diagnostics).toEqual([]);
    expect(scanned.candidateFiles).toBe(3);
    expect(scanned.crds.map((crd) => [crd.name, crd.names, crd.scope, crd.sources, crd.versions.map((v) => [v.name, v.served, v.storage, v.status, v.printerColumns])])).toEqual([
      [
        'assignments.shaper.io',
        { kind: 'Assignment', listKind: 'AssignmentList', plural: 'assignments', singular: 'assignment', shortNames: ['asg'], categories: ['shaper'] },
        'Namespaced',
        ['sample/api/assignment.ts'],
        [
          [
            'v1alpha1',
            true,
            true,
            true,
            [
              { name: 'Profile', type: 'string', jsonPath: '.spec.profileRef.name' },
              { name: 'Weight', type: 'integer', jsonPath: '.spec.weight' },
              { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
            ],
          ],
        ],
      ],
      [
        'profiles.shaper.io',
        { kind: 'Profile', listKind: 'ProfileList', plural: 'profiles', singular: 'profile', shortNames: ['prof'], categories: ['shaper'] },
        'Namespaced',
        ['sample/api/profile.ts'],
        [
          [
            'v1alpha1',
            true,
            true,
            true,
            [
              { name: 'Tier', type: 'string', jsonPath: '.spec.tier' },
              { name: 'Priority', type: 'integer', jsonPath: '.spec.priority' },
              { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
            ],
          ],
        ],
      ],
    ]);
  });

  it('give Profile this schema: bounds from the consts MIN_PRIORITY, MAX_PRIORITY and MAX_DESCRIPTION_LENGTH, the tiers from PROFILE_TIERS in order', () => {
    const quantity = (description: string) => ({ description, anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
    expect(scanned.crds[1]!.versions[0]!.schema).toEqual({
      type: 'object',
      description:
        'A shaping profile: how much and how urgently the workloads it is assigned to get. Stored as v1alpha1; v1beta1 (sample/api/v1beta1/) is served too, converted by sample/conversion/profile-conversion.ts.',
      properties: {
        apiVersion: { type: 'string', description: 'The API group and version of this object: shaper.io/v1alpha1.' },
        kind: { type: 'string', description: 'The kind of this object: Profile.' },
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          properties: {
            description: { type: 'string', maxLength: 256 },
            priority: { type: 'integer', description: 'Scheduling priority from 0 to 1000; defaulted from the tier.', minimum: 0, maximum: 1000 },
            resources: {
              type: 'object',
              description: 'Resource quantities, as in a container\'s resources ("500m", "1Gi").',
              properties: { cpu: quantity('CPU quantity, like 500m or 2.'), memory: quantity('Memory quantity, like 512Mi.') },
            },
            tier: { type: 'string', description: 'Service tier; defaulted to bronze, immutable once set.', enum: ['bronze', 'silver', 'gold'] },
          },
        },
        status: { type: 'object', properties: { assignments: { type: 'integer', description: 'Number of Assignments referencing this Profile.' } } },
      },
    });
  });

  it("give Assignment's selector the shape of shaper-gen's LabelSelector, atomic as metav1.LabelSelector", () => {
    const spec = scanned.crds[0]!.versions[0]!.schema.properties!.spec!;
    expect(spec.properties!.selector).toEqual({
      type: 'object',
      description: 'The workloads the profile applies to; must not be empty.',
      'x-kubernetes-map-type': 'atomic',
      properties: {
        matchExpressions: {
          type: 'array',
          description: 'Requirements on labels, all of which must hold.',
          'x-kubernetes-list-type': 'atomic',
          items: {
            type: 'object',
            description: 'A requirement on one label: its key, an operator, and the values In and NotIn compare with.',
            required: ['key', 'operator'],
            properties: {
              key: { type: 'string', description: 'The label key the requirement applies to.' },
              operator: { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
              values: {
                type: 'array',
                description: 'The values for In and NotIn (at least one); none for Exists and DoesNotExist.',
                'x-kubernetes-list-type': 'atomic',
                items: { type: 'string' },
              },
            },
          },
        },
        matchLabels: { type: 'object', description: '`key: value` pairs, each the requirement "key In (value)".', additionalProperties: { type: 'string' } },
      },
    });
    expect(spec.properties!.weight).toEqual({ type: 'integer', description: 'From 1 to 100; defaulted to 50.', minimum: 1, maximum: 100 });
  });
});

describe('enumerations', () => {
  it('keep the order written, whatever order the checker met the literals in', () => {
    const { crds, messages } = scan({
      // 'gold' and 'silver' are met first here, so the checker's union lists them first.
      'src/api/early.ts': `export type Early = 'gold' | 'silver';\nexport const early: Early = 'gold';\n`,
      'src/api/thing.ts': `import type { KubernetesObject } from 'shaper-gen';
import type { Early } from './early.js';
export const TIERS = ['bronze', 'silver', 'gold'] as const;
export enum Level { Low = 2, High = 1 }
/** @shaper:resource */
export interface Thing extends KubernetesObject {
  spec?: { early?: Early; tier?: (typeof TIERS)[number]; inline?: 'z' | 'a' | 'm'; level?: Level; pick?: Extract<(typeof TIERS)[number], 'gold' | 'bronze'> };
}
`,
    });
    expect(messages).toEqual([]);
    expect(crds[0]!.versions[0]!.schema.properties!.spec!.properties).toEqual({
      early: { type: 'string', enum: ['gold', 'silver'] },
      inline: { type: 'string', enum: ['z', 'a', 'm'] },
      level: { type: 'integer', enum: [2, 1] },
      // Not spelled out by the nodes: sorted.
      pick: { type: 'string', enum: ['bronze', 'gold'] },
      tier: { type: 'string', enum: ['bronze', 'silver', 'gold'] },
    });
  });
});

describe('lists and maps named by a type alias', () => {
  it("keep their items' and values' markers, as when the alias is written out", () => {
    const { crds, messages } = scan({
      'src/api/thing.ts': `import type { KubernetesObject } from 'shaper-gen';
/** @shaper:maxLength 10 */
export type Name = string;
export type Names = Name[];
/** @shaper:maxItems 3 */
export type FewNames = readonly Name[];
export type ByName = Record<string, Name>;
export type Indexed = { [key: string]: Name };
/** @shaper:resource */
export interface Thing extends KubernetesObject {
  spec?: { direct?: Name[]; names?: Names; few?: FewNames; nested?: Names[]; orNull?: Names | null; byName?: ByName; frozen?: Readonly<ByName>; indexed?: Indexed };
}
`,
    });
    expect(messages).toEqual([]);
    const name = { type: 'string', maxLength: 10 };
    expect(crds[0]!.versions[0]!.schema.properties!.spec).toEqual({
      type: 'object',
      properties: {
        byName: { type: 'object', additionalProperties: name },
        direct: { type: 'array', items: name },
        few: { type: 'array', items: name, maxItems: 3 },
        frozen: { type: 'object', additionalProperties: name },
        indexed: { type: 'object', additionalProperties: name },
        names: { type: 'array', items: name },
        nested: { type: 'array', items: { type: 'array', items: name } },
        orNull: { type: 'array', items: name, nullable: true },
      },
    });
  });

  it('keep them through a generic alias, whose parameters stand for the arguments written at the field', () => {
    const { crds, messages } = scan({
      'src/api/thing.ts': `import type { KubernetesObject } from 'shaper-gen';
/** @shaper:maxLength 10 */
export type Name = string;
/** @shaper:minimum 1 */
export type Count = number;
export type List<T> = T[];
export type ListOf<T> = List<T>;
export type ByKey<V> = Record<string, V>;
export type Frozen<V> = Readonly<ByKey<V>>;
export type Defaulted<T = Name> = readonly T[];
/** @shaper:resource */
export interface Thing extends KubernetesObject {
  spec?: { names?: List<Name>; counts?: ListOf<Count>; byKey?: ByKey<Name>; frozen?: Frozen<Count>; defaulted?: Defaulted; nested?: List<List<Name>> };
}
`,
    });
    expect(messages).toEqual([]);
    const name = { type: 'string', maxLength: 10 };
    const count = { type: 'integer', minimum: 1 };
    expect(crds[0]!.versions[0]!.schema.properties!.spec).toEqual({
      type: 'object',
      properties: {
        byKey: { type: 'object', additionalProperties: name },
        counts: { type: 'array', items: count },
        defaulted: { type: 'array', items: name },
        frozen: { type: 'object', additionalProperties: count },
        names: { type: 'array', items: name },
        nested: { type: 'array', items: { type: 'array', items: name } },
      },
    });
  });
});

describe('versions of one kind', () => {
  const kind = (version: string, extra = '') => `import type { KubernetesObject } from 'shaper-gen';
/**
 * @shaper:resource shortName=gz
 * ${extra}
 */
export interface Gizmo extends KubernetesObject { spec?: { ${version === 'v1beta1' ? 'size?: number' : 'big?: boolean'} } }
`;
  const group = (version: string) => `/** @shaper:groupName */\nexport const GROUP = 'example.com';\n/** @shaper:versionName */\nexport const VERSION = '${version}';\n`;

  it('join into one CRD, in Kubernetes version priority, with the marked storage version', () => {
    const { crds, messages } = scan({
      'src/api/v1alpha1/group.ts': group('v1alpha1'),
      'src/api/v1alpha1/gizmo.ts': kind('v1alpha1', '@shaper:deprecatedversion warning="use v1beta1"'),
      'src/api/v1beta1/group.ts': group('v1beta1'),
      'src/api/v1beta1/gizmo.ts': kind('v1beta1', '@shaper:storageversion'),
      'src/api/v1alpha2/group.ts': group('v1alpha2'),
      'src/api/v1alpha2/gizmo.ts': kind('v1alpha2', '@shaper:unservedversion'),
    });
    expect(messages).toEqual([]);
    expect(crds.map((crd) => [crd.name, crd.sources])).toEqual([['gizmos.example.com', ['src/api/v1alpha1/gizmo.ts', 'src/api/v1alpha2/gizmo.ts', 'src/api/v1beta1/gizmo.ts']]]);
    expect(
      crds[0]!.versions.map(({ name, served, storage, deprecated, deprecationWarning, schema }) => ({ name, served, storage, deprecated, deprecationWarning, spec: schema.properties!.spec })),
    ).toEqual([
      { name: 'v1beta1', served: true, storage: true, deprecated: false, deprecationWarning: undefined, spec: { type: 'object', properties: { size: { type: 'integer' } } } },
      { name: 'v1alpha2', served: false, storage: false, deprecated: false, deprecationWarning: undefined, spec: { type: 'object', properties: { big: { type: 'boolean' } } } },
      { name: 'v1alpha1', served: true, storage: false, deprecated: true, deprecationWarning: 'use v1beta1', spec: { type: 'object', properties: { big: { type: 'boolean' } } } },
    ]);
  });
});

describe('defaults of @shaper:resource', () => {
  it('plural by English rules, singular in lower case, Namespaced, no short names or categories', () => {
    const kinds = ['Policy', 'Box', 'Batch', 'Key', 'Gateway', 'Status'];
    const files = Object.fromEntries(
      kinds.map((kind) => [
        `src/api/${kind.toLowerCase()}.ts`,
        `import type { KubernetesObject } from 'shaper-gen';\n/** @shaper:resource */\nexport interface ${kind} extends KubernetesObject {}\n`,
      ]),
    );
    const { crds, messages } = scan(files);
    expect(messages).toEqual([]);
    expect(crds.map((crd) => [crd.names.kind, crd.names.plural, crd.names.singular, crd.scope, crd.names.shortNames, crd.names.categories])).toEqual([
      ['Batch', 'batches', 'batch', 'Namespaced', [], []],
      ['Box', 'boxes', 'box', 'Namespaced', [], []],
      ['Gateway', 'gateways', 'gateway', 'Namespaced', [], []],
      ['Key', 'keys', 'key', 'Namespaced', [], []],
      ['Policy', 'policies', 'policy', 'Namespaced', [], []],
      ['Status', 'statuses', 'status', 'Namespaced', [], []],
    ]);
  });
});
