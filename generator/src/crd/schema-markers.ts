/**
 * Schema markers applied to the schema of the field (or type) they are
 * written on, each checked against what that field is: `minimum` on a number,
 * `pattern` on a string, `listType` on a list, and so on. The checks between
 * markers (a minimum above the maximum, a list-map key that is not a required
 * scalar of the items, a default the schema refuses) run once all are applied.
 */
import { checkRule } from './cel-rules.js';
import { recordRuleOrigin } from './rule-origins.js';
import type { KeyArguments, MarkerArgument } from './marker-arguments.js';
import type { MarkerDefinition } from './marker-definitions.js';
import { exactPositionInValue, type MarkerTag } from './marker-syntax.js';
import { conformanceProblem } from './conformance.js';
import type { Schema, ValidationRule } from './types.js';

export interface AppliedMarker {
  readonly marker: MarkerTag;
  readonly definition: MarkerDefinition;
  readonly argument: MarkerArgument;
}

/** Reports a problem at a position of a marker (its `@` when the position is not known better). */
export type MarkerProblem = (marker: MarkerTag, message: string, position?: number) => void;

type Shape = 'integer' | 'number' | 'string' | 'boolean' | 'array' | 'object' | 'int-or-string' | 'any';

export function shapeOf(schema: Schema): Shape {
  if (schema['x-kubernetes-int-or-string']) return 'int-or-string';
  return schema.type ?? 'any';
}

const NUMERIC: readonly Shape[] = ['integer', 'number', 'int-or-string'];
const TEXT: readonly Shape[] = ['string', 'int-or-string'];
const SCALAR: readonly Shape[] = ['integer', 'number', 'string', 'boolean', 'int-or-string'];

/** Which shapes each marker applies to (absent: any field). */
const APPLIES_TO: Readonly<Record<string, { readonly shapes: readonly Shape[]; readonly words: string }>> = {
  minimum: { shapes: NUMERIC, words: 'numbers' },
  maximum: { shapes: NUMERIC, words: 'numbers' },
  exclusiveMinimum: { shapes: NUMERIC, words: 'numbers' },
  exclusiveMaximum: { shapes: NUMERIC, words: 'numbers' },
  multipleOf: { shapes: NUMERIC, words: 'numbers' },
  type: { shapes: ['integer', 'number'], words: 'fields typed number' },
  format: { shapes: SCALAR, words: 'strings and numbers' },
  minLength: { shapes: TEXT, words: 'strings' },
  maxLength: { shapes: TEXT, words: 'strings' },
  pattern: { shapes: TEXT, words: 'strings' },
  minItems: { shapes: ['array'], words: 'lists' },
  maxItems: { shapes: ['array'], words: 'lists' },
  listType: { shapes: ['array'], words: 'lists' },
  listMapKey: { shapes: ['array'], words: 'lists' },
  minProperties: { shapes: ['object'], words: 'objects and maps' },
  maxProperties: { shapes: ['object'], words: 'objects and maps' },
  mapType: { shapes: ['object'], words: 'objects and maps' },
  enum: { shapes: SCALAR, words: 'strings, numbers and booleans' },
  preserveUnknownFields: { shapes: ['object', 'any'], words: 'objects' },
  embeddedResource: { shapes: ['object'], words: 'objects' },
  embeddedObjectMeta: { shapes: ['object', 'array'], words: 'objects and lists' },
};

/** Applies `markers` in order (a later one of the same name wins, repeatable ones add up), then checks the result. */
export function applySchemaMarkers(schema: Schema, markers: readonly AppliedMarker[], problem: MarkerProblem): void {
  const applied = new Map<string, AppliedMarker>();
  for (const entry of markers) {
    const rule = APPLIES_TO[entry.definition.name];
    const shape = shapeOf(schema);
    if (rule && !rule.shapes.includes(shape)) {
      problem(entry.marker, `@shaper:${entry.definition.name} applies to ${rule.words}, and this field is ${describeShape(shape)}`);
      continue;
    }
    const message = apply(schema, entry);
    if (message) problem(entry.marker, message.text, message.position);
    else applied.set(entry.definition.name, entry);
  }
  checkCombination(schema, applied, problem);
  checkRules(schema, markers, problem);
}

function describeShape(shape: Shape): string {
  if (shape === 'int-or-string') return 'an int-or-string';
  if (shape === 'any') return 'any JSON value';
  return /^[aeiou]/.test(shape) ? `an ${shape}` : `a ${shape}`;
}

interface Message {
  readonly text: string;
  readonly position?: number;
}

// eslint-disable-next-line complexity -- one case per marker, each a line
function apply(schema: Schema, { definition, argument, marker }: AppliedMarker): Message | undefined {
  const name = definition.name;
  const value = argument as never;
  switch (name) {
    case 'minimum':
    case 'maximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
    case 'format':
      schema[name] = value;
      return undefined;
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'nullable':
      schema[name] = true;
      return undefined;
    case 'multipleOf':
      if ((argument as number) <= 0) return { text: '@shaper:multipleOf must be above 0' };
      schema.multipleOf = value;
      return undefined;
    case 'type':
      schema.type = value;
      return undefined;
    case 'pattern':
      return setPattern(schema, argument as string, marker.textStart);
    case 'listType':
      schema['x-kubernetes-list-type'] = value;
      return undefined;
    case 'listMapKey':
      (schema['x-kubernetes-list-map-keys'] ??= []).push(value);
      return undefined;
    case 'mapType':
      schema['x-kubernetes-map-type'] = value;
      return undefined;
    case 'enum':
      schema.enum = argument as unknown[];
      return undefined;
    case 'default':
      schema.default = (argument as { value: unknown }).value;
      return undefined;
    case 'preserveUnknownFields':
      schema['x-kubernetes-preserve-unknown-fields'] = true;
      return undefined;
    case 'embeddedResource':
      schema['x-kubernetes-embedded-resource'] = true;
      return undefined;
    case 'validation':
      return addRule(schema, argument as KeyArguments);
    case 'embeddedObjectMeta':
      declareEmbeddedObjectMeta(schema);
      return undefined;
    case 'maxDescLen':
      shortenDescriptions(schema, argument as number);
      return undefined;
    default:
      return { text: `@shaper:${name} belongs ${name === 'resource' ? 'on a kind' : 'elsewhere'}` };
  }
}

/** The ObjectMeta fields controller-gen's crd:generateEmbeddedObjectMeta writes. */
const EMBEDDED_OBJECT_META: Readonly<Record<string, Schema>> = {
  annotations: { type: 'object', additionalProperties: { type: 'string' } },
  finalizers: { type: 'array', items: { type: 'string' } },
  labels: { type: 'object', additionalProperties: { type: 'string' } },
  name: { type: 'string' },
  namespace: { type: 'string' },
};

/** Each `metadata` below the schema that is a bare object (ObjectMeta as written inside a type) declares EMBEDDED_OBJECT_META. */
function declareEmbeddedObjectMeta(schema: Schema): void {
  const metadata = schema.properties?.metadata;
  if (metadata?.type === 'object' && !metadata.properties && !metadata.additionalProperties && !metadata['x-kubernetes-preserve-unknown-fields'])
    metadata.properties = structuredClone(EMBEDDED_OBJECT_META);
  for (const child of [...Object.values(schema.properties ?? {}), ...(schema.items ? [schema.items] : []), ...(schema.additionalProperties ? [schema.additionalProperties] : [])])
    declareEmbeddedObjectMeta(child);
}

/** Every description in the schema cut to `length` characters: at the last sentence's end that fits, else at a word's; 0 removes them. */
export function shortenDescriptions(schema: Schema, length: number): void {
  if (schema.description !== undefined) {
    if (length === 0) delete schema.description;
    else if (schema.description.length > length) {
      const cut = schema.description.slice(0, length + 1);
      const sentence = cut.lastIndexOf('. ');
      const word = cut.search(/\s\S*$/);
      schema.description = sentence > 0 ? cut.slice(0, sentence + 1) : word > 0 ? cut.slice(0, word) : cut.slice(0, length);
    }
  }
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(schema.additionalProperties ? [schema.additionalProperties] : []),
    ...(schema.anyOf ?? []),
  ];
  for (const child of children) shortenDescriptions(child, length);
}

function setPattern(schema: Schema, pattern: string, position: number): Message | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return { text: `@shaper:pattern is not a regular expression: ${(error as Error).message}`, position };
  }
  schema.pattern = pattern;
  return undefined;
}

function addRule(schema: Schema, { values, positions }: KeyArguments): Message | undefined {
  const rule = { ...values } as unknown as ValidationRule;
  if (rule.message?.trim() === '') return { text: '@shaper:validation message must not be blank', position: positions.message };
  if (rule.fieldPath !== undefined && !rule.fieldPath.startsWith('.')) {
    return { text: '@shaper:validation fieldPath is a JSON path starting with "." (e.g. .spec.replicas)', position: positions.fieldPath };
  }
  (schema['x-kubernetes-validations'] ??= []).push(rule);
  return undefined;
}

/** The rules these markers added, compiled with `self` typed by the finished schema (a later marker may change it). */
function checkRules(schema: Schema, markers: readonly AppliedMarker[], problem: MarkerProblem): void {
  const rules = schema['x-kubernetes-validations'] ?? [];
  for (const { marker, argument, definition } of markers) {
    if (definition.name !== 'validation') continue;
    const { values, positions } = argument as KeyArguments;
    const rule = rules.find((r) => r.rule === values.rule && r.message === values.message);
    if (!rule) continue;
    const found = checkRule(rule, schema);
    if (found) {
      const valueStart = positions[found.key]!;
      const exact = found.at && exactPositionInValue(marker, valueStart, values[found.key] as string, found.at.offset);
      // One column: where the marker shows the expression as written, file:line:col points into it; else the message says where.
      if (exact !== undefined && found.at) problem(marker, found.at.message, exact);
      else problem(marker, found.message, valueStart);
      rules.splice(rules.indexOf(rule), 1);
    } else {
      recordRuleOrigin(rule, (message, key = 'rule') => problem(marker, message, positions[key] ?? positions.rule));
    }
  }
  if (rules.length === 0) delete schema['x-kubernetes-validations'];
}

function checkCombination(schema: Schema, applied: ReadonlyMap<string, AppliedMarker>, problem: MarkerProblem): void {
  const at = (name: string, message: string) => problem(applied.get(name)!.marker, message);
  if (applied.has('exclusiveMinimum') && schema.minimum === undefined) at('exclusiveMinimum', '@shaper:exclusiveMinimum needs @shaper:minimum');
  if (applied.has('exclusiveMaximum') && schema.maximum === undefined) at('exclusiveMaximum', '@shaper:exclusiveMaximum needs @shaper:maximum');
  for (const [low, high] of [
    ['minimum', 'maximum'],
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
    ['minProperties', 'maxProperties'],
  ] as const) {
    if (schema[low] !== undefined && schema[high] !== undefined && schema[low] > schema[high] && (applied.has(low) || applied.has(high))) {
      at(applied.has(high) ? high : low, `@shaper:${low} ${schema[low]} is above @shaper:${high} ${schema[high]}`);
    }
  }
  if (schema.type === 'integer' && schema.enum?.some((value) => !Number.isInteger(value)) && applied.has('type')) at('type', 'an integer field cannot have the non-integer values of its enum');
  checkListType(schema, applied, at);
  checkValues(schema, applied, problem);
}

/** The values `enum` and `default` write must fit the rest of the schema. */
function checkValues(schema: Schema, applied: ReadonlyMap<string, AppliedMarker>, problem: MarkerProblem): void {
  for (const name of ['enum', 'default'] as const) {
    const entry = applied.get(name);
    if (!entry) continue;
    const values = name === 'enum' ? (schema.enum ?? []) : [schema.default];
    const withoutOwn = name === 'enum' ? { ...schema, enum: undefined } : schema;
    for (const value of values) {
      const mismatch = conformanceProblem(value, withoutOwn);
      if (mismatch) problem(entry.marker, `@shaper:${name} ${JSON.stringify(value)} does not fit the field: ${mismatch}`);
    }
  }
}

function checkListType(schema: Schema, applied: ReadonlyMap<string, AppliedMarker>, at: (name: string, message: string) => void): void {
  const listType = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'];
  if (keys && listType !== 'map') {
    at('listMapKey', '@shaper:listMapKey needs @shaper:listType map');
    return;
  }
  const items = schema.items ?? {};
  if (listType === 'set' && !SCALAR.includes(shapeOf(items)) && items['x-kubernetes-map-type'] !== 'atomic') {
    at('listType', '@shaper:listType set needs scalar items (strings, numbers, booleans) or atomic ones');
  }
  if (listType !== 'map') return;
  if (items.type !== 'object' || !items.properties) {
    at('listType', '@shaper:listType map needs items that are objects with properties');
    return;
  }
  if (!keys?.length) {
    at('listType', '@shaper:listType map needs at least one @shaper:listMapKey naming a property of the items');
    return;
  }
  for (const key of keys) {
    const property = items.properties[key];
    if (!property) at('listMapKey', `@shaper:listMapKey ${key}: the items have no property ${JSON.stringify(key)}`);
    else if (!SCALAR.includes(shapeOf(property))) at('listMapKey', `@shaper:listMapKey ${key}: a list-map key must be a scalar property`);
    else if (!items.required?.includes(key) && property.default === undefined) at('listMapKey', `@shaper:listMapKey ${key}: a list-map key must be required (no \`?\`) or have a @shaper:default`);
  }
}
