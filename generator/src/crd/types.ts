/**
 * The data a CustomResourceDefinition is made of, as apiextensions.k8s.io/v1
 * names it: plain objects, no TypeScript compiler types, so that the schema
 * mapping can be tested and rendered on its own.
 */

/** One `x-kubernetes-validations` rule. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** JSONSchemaProps, limited to what a structural schema may hold. */
export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maximum?: number;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** The order keys are written in: what a field is first, then its constraints, then what it contains. */
export const SCHEMA_KEY_ORDER: readonly (keyof Schema)[] = [
  'type',
  'format',
  'description',
  'enum',
  'default',
  'nullable',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'anyOf',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
  'required',
  'items',
  'properties',
  'additionalProperties',
];

export type Scope = 'Namespaced' | 'Cluster';

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface SelectableField {
  jsonPath: string;
}

export interface ResourceNames {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
}

/** One version of a kind, from one root type. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecationWarning?: string | undefined;
  deprecated: boolean;
  status: boolean;
  scale?: ScaleSubresource | undefined;
  printerColumns: PrinterColumn[];
  selectableFields: SelectableField[];
  schema: Schema;
}

export interface Crd {
  /** `<plural>.<group>`. */
  name: string;
  group: string;
  scope: Scope;
  names: ResourceNames;
  /** By Kubernetes version priority, highest first. */
  versions: CrdVersion[];
  /** The files the versions were declared in, relative to the project root, sorted. */
  sources: string[];
}
