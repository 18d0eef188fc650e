/**
 * Every `@shaper:` marker: where it may be written, what argument it takes,
 * what it writes into the CustomResourceDefinition. One table, read by the
 * argument parser (marker-arguments.ts), by the checks of placement and
 * spelling (scan.ts), and by the reference page (docs/reference/crd-markers.md).
 *
 * Naming: a schema marker is named after the OpenAPI keyword it writes
 * (`minimum`, `maxLength`), an `x-kubernetes-*` extension without that prefix
 * and in camelCase (`listType`, `preserveUnknownFields`); a marker that can be
 * repeated adds one entry per tag and is singular (`listMapKey`, `validation`,
 * `printcolumn`). Kind and package markers follow kubebuilder's names
 * (`resource`, `subresource`, `printcolumn`, `storageversion`, `groupName`).
 */

/** Where a marker belongs. */
export type MarkerPlace =
  /** On an exported `const` of an API package (a directory): its group or version. */
  | 'package'
  /** On the interface that declares a kind (the one with `@shaper:resource`). */
  | 'kind'
  /** On a property; on an interface, type alias or enum, for every property of that type; or on a kind, for its whole schema. */
  | 'schema';

export interface KeySpec {
  readonly type: 'string' | 'list' | 'integer' | 'boolean';
  readonly required?: boolean;
  /** The allowed values of a string. */
  readonly words?: readonly string[];
  /** How kubebuilder's marker spells this key (`JSONPath`, `specpath`): pointed to this name. */
  readonly kubebuilder?: string;
}

export type ArgumentSpec =
  | { readonly kind: 'flag' }
  | { readonly kind: 'number' }
  | { readonly kind: 'count' }
  | { readonly kind: 'string' }
  | { readonly kind: 'value' }
  | { readonly kind: 'list' }
  | { readonly kind: 'word'; readonly words: readonly string[] }
  | { readonly kind: 'keys'; readonly positional?: readonly string[]; readonly keys: Readonly<Record<string, KeySpec>> };

export interface MarkerDefinition {
  readonly name: string;
  readonly place: MarkerPlace;
  readonly argument: ArgumentSpec;
  /** Written several times, each tag adding one entry. */
  readonly repeatable?: boolean;
  /** What it writes, for the reference page. */
  readonly writes: string;
  readonly help: string;
}

const flag = { kind: 'flag' } as const;
const number = { kind: 'number' } as const;
const count = { kind: 'count' } as const;
const string = { kind: 'string' } as const;

export const MARKERS: readonly MarkerDefinition[] = [
  // Package: group and version, once per directory, like kubebuilder's groupversion_info.go.
  {
    name: 'groupName',
    place: 'package',
    argument: flag,
    writes: '`spec.group`',
    help: "On an exported string `const`: the API group of every kind declared in this const's directory.",
  },
  {
    name: 'versionName',
    place: 'package',
    argument: flag,
    writes: '`spec.versions[].name`',
    help: "On an exported string `const`: the version of every kind declared in this const's directory.",
  },

  // Kind.
  {
    name: 'resource',
    place: 'kind',
    argument: {
      kind: 'keys',
      keys: {
        scope: { type: 'string', words: ['Namespaced', 'Cluster'] },
        plural: { type: 'string' },
        singular: { type: 'string' },
        shortName: { type: 'list' },
        categories: { type: 'list' },
      },
    },
    writes: '`spec.names`, `spec.scope`',
    help: 'Declares the interface as a kind (its name is the kind) with a CRD of its own. scope: Namespaced (default) or Cluster; plural (default: the kind in lower case, made plural by English rules) and singular (default: the kind in lower case); shortName and categories: lists separated by `;`.',
  },
  {
    name: 'subresource',
    place: 'kind',
    repeatable: true,
    argument: {
      kind: 'keys',
      positional: ['status', 'scale'],
      keys: {
        specReplicasPath: { type: 'string', kubebuilder: 'specpath' },
        statusReplicasPath: { type: 'string', kubebuilder: 'statuspath' },
        labelSelectorPath: { type: 'string', kubebuilder: 'selectorpath' },
      },
    },
    writes: '`spec.versions[].subresources`',
    help: '`status`, or `scale specReplicasPath=… statusReplicasPath=… [labelSelectorPath=…]`.',
  },
  {
    name: 'printcolumn',
    place: 'kind',
    repeatable: true,
    argument: {
      kind: 'keys',
      keys: {
        name: { type: 'string', required: true },
        type: { type: 'string', required: true, words: ['integer', 'number', 'string', 'boolean', 'date'] },
        jsonPath: { type: 'string', required: true, kubebuilder: 'JSONPath' },
        description: { type: 'string' },
        format: { type: 'string' },
        priority: { type: 'integer' },
      },
    },
    writes: '`spec.versions[].additionalPrinterColumns[]`',
    help: 'A column of `kubectl get`, in the order written: `name=… type=… jsonPath=…` and optionally description, format and priority. Declaring any replaces the default Age column: add it as `name=Age type=date jsonPath=.metadata.creationTimestamp`.',
  },
  {
    name: 'selectablefield',
    place: 'kind',
    repeatable: true,
    argument: { kind: 'keys', keys: { jsonPath: { type: 'string', required: true, kubebuilder: 'JSONPath' } } },
    writes: '`spec.versions[].selectableFields[]`',
    help: 'A field clients can select on, as on metadata.name: `kubectl get --field-selector spec.color=blue`. `jsonPath=…` names a string, integer or boolean field outside metadata and lists, at most 8 per version. Kubernetes 1.31 or later (1.30 has them behind the CustomResourceFieldSelectors feature gate, off by default, and drops them).',
  },
  {
    name: 'storageversion',
    place: 'kind',
    argument: flag,
    writes: '`spec.versions[].storage`',
    help: 'This version is the one stored in etcd; required on exactly one version when a kind has several.',
  },
  {
    name: 'unservedversion',
    place: 'kind',
    argument: flag,
    writes: '`spec.versions[].served: false`',
    help: 'The API server does not serve this version.',
  },
  {
    name: 'deprecatedversion',
    place: 'kind',
    argument: { kind: 'keys', keys: { warning: { type: 'string' } } },
    writes: '`spec.versions[].deprecated`, `deprecationWarning`',
    help: "Clients of this version get a deprecation warning (the given one, else the API server's).",
  },

  // Schema: numbers.
  { name: 'minimum', place: 'schema', argument: number, writes: '`minimum`', help: 'Smallest allowed value of a number.' },
  { name: 'maximum', place: 'schema', argument: number, writes: '`maximum`', help: 'Largest allowed value of a number.' },
  { name: 'exclusiveMinimum', place: 'schema', argument: flag, writes: '`exclusiveMinimum: true`', help: 'The minimum itself is not allowed (needs `minimum`).' },
  { name: 'exclusiveMaximum', place: 'schema', argument: flag, writes: '`exclusiveMaximum: true`', help: 'The maximum itself is not allowed (needs `maximum`).' },
  { name: 'multipleOf', place: 'schema', argument: number, writes: '`multipleOf`', help: 'The value must be a multiple of this (above 0).' },
  {
    name: 'type',
    place: 'schema',
    argument: { kind: 'word', words: ['integer', 'number'] },
    writes: '`type`',
    help: 'For a `number`: `integer` (the default: Kubernetes APIs avoid floats) or `number` (floating point).',
  },
  { name: 'format', place: 'schema', argument: string, writes: '`format`', help: 'An OpenAPI format: date-time, int32, int64, uri, email, uuid, byte, …' },

  // Schema: strings.
  { name: 'minLength', place: 'schema', argument: count, writes: '`minLength`', help: 'Fewest characters of a string.' },
  { name: 'maxLength', place: 'schema', argument: count, writes: '`maxLength`', help: 'Most characters of a string.' },
  {
    name: 'pattern',
    place: 'schema',
    argument: string,
    writes: '`pattern`',
    help: 'A regular expression a string must match (the rest of the line; quote it as a JSON string to keep spaces at its ends).',
  },

  // Schema: lists and maps.
  { name: 'minItems', place: 'schema', argument: count, writes: '`minItems`', help: 'Fewest items of a list.' },
  { name: 'maxItems', place: 'schema', argument: count, writes: '`maxItems`', help: 'Most items of a list.' },
  {
    name: 'listType',
    place: 'schema',
    argument: { kind: 'word', words: ['atomic', 'set', 'map'] },
    writes: '`x-kubernetes-list-type`',
    help: 'How server-side apply merges a list: atomic (replaced whole), set (unique scalars) or map (objects keyed by `listMapKey`).',
  },
  {
    name: 'listMapKey',
    place: 'schema',
    repeatable: true,
    argument: string,
    writes: '`x-kubernetes-list-map-keys[]`',
    help: 'A key of a `listType map` list: a required (or defaulted) scalar property of its items; one tag per key.',
  },
  { name: 'minProperties', place: 'schema', argument: count, writes: '`minProperties`', help: 'Fewest entries of an object or map.' },
  { name: 'maxProperties', place: 'schema', argument: count, writes: '`maxProperties`', help: 'Most entries of an object or map.' },
  {
    name: 'mapType',
    place: 'schema',
    argument: { kind: 'word', words: ['atomic', 'granular'] },
    writes: '`x-kubernetes-map-type`',
    help: 'How server-side apply merges an object or map: granular (field by field, the default) or atomic (replaced whole).',
  },

  // Schema: any field.
  { name: 'enum', place: 'schema', argument: { kind: 'list' }, writes: '`enum`', help: 'Allowed values, separated by `;` (a union of literal types gives them without this marker).' },
  { name: 'default', place: 'schema', argument: { kind: 'value' }, writes: '`default`', help: 'The value the API server sets when the field is absent: JSON, or a bare word for a string.' },
  { name: 'nullable', place: 'schema', argument: flag, writes: '`nullable: true`', help: 'null is kept rather than pruned (a `T | null` type gives this without the marker).' },
  {
    name: 'preserveUnknownFields',
    place: 'schema',
    argument: flag,
    writes: '`x-kubernetes-preserve-unknown-fields: true`',
    help: 'Fields the schema does not declare are kept, not pruned (an `unknown` type or an index signature of `unknown` gives this without the marker).',
  },
  {
    name: 'embeddedResource',
    place: 'schema',
    argument: flag,
    writes: '`x-kubernetes-embedded-resource: true`',
    help: 'The object is a Kubernetes object with apiVersion, kind and metadata, checked as such (e.g. a field typed `KubernetesObject`).',
  },
  {
    name: 'embeddedObjectMeta',
    place: 'schema',
    argument: flag,
    writes: '`properties` of each embedded `metadata`',
    help: "Every `metadata` of type ObjectMeta inside the field (a V1PodTemplateSpec's, a V1JobTemplateSpec's) keeps name, namespace, labels, annotations and finalizers, which `type: object` alone prunes; like controller-gen's crd:generateEmbeddedObjectMeta. On a kind, for the whole CRD.",
  },
  {
    name: 'maxDescLen',
    place: 'schema',
    argument: count,
    writes: '`description` (shortened)',
    help: "Shortens every description in the field's schema, its own and its subfields', to at most this many characters (at a sentence's end where one fits, else at a word's); 0 removes them. Like controller-gen's crd:maxDescLen, for the size of a field typed from @kubernetes/client-node (a V1PodTemplateSpec's descriptions are two thirds of its schema); on a kind, for the whole CRD.",
  },
  {
    name: 'validation',
    place: 'schema',
    repeatable: true,
    argument: {
      kind: 'keys',
      keys: {
        rule: { type: 'string', required: true },
        message: { type: 'string' },
        messageExpression: { type: 'string' },
        reason: { type: 'string', words: ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'] },
        fieldPath: { type: 'string' },
        optionalOldSelf: { type: 'boolean' },
      },
    },
    writes: '`x-kubernetes-validations[]`',
    help: 'A CEL rule the API server checks, with `self` (and `oldSelf` on update) the field\'s value: `rule="self.min <= self.max" message="min must not exceed max"`; also messageExpression, reason, fieldPath and optionalOldSelf.',
  },
];

const BY_NAME = new Map(MARKERS.map((marker) => [marker.name, marker]));

export function markerDefinition(name: string): MarkerDefinition | undefined {
  return BY_NAME.get(name);
}

export const MARKER_NAMES: readonly string[] = MARKERS.map((marker) => marker.name);

/** Where a place's markers go, for messages. */
export const PLACE_WORDS: Readonly<Record<MarkerPlace, string>> = {
  package: "on an exported string const (the API package's group or version)",
  kind: 'on the interface that declares a kind (with @shaper:resource)',
  schema: 'on a property, on a type used by properties, or on a kind',
};
