/**
 * Whether a JSON value fits a schema, for the values markers write into it
 * (`default`, `enum`): the checks the API server runs on them when it stores
 * the CRD, so that a wrong default is a `file:line:col` message instead of a
 * refused `helm install`. CEL rules are not evaluated.
 */
import type { Schema } from './types.js';

/** The first reason `value` does not fit `schema`, or undefined. */
export function conformanceProblem(value: unknown, schema: Schema, path = ''): string | undefined {
  const at = (message: string) => (path ? `${path}: ${message}` : message);
  if (value === null) return schema.nullable || schema['x-kubernetes-preserve-unknown-fields'] ? undefined : at('null is not allowed (the field is not nullable)');
  const typeProblem = typeMismatch(value, schema);
  if (typeProblem) return at(typeProblem);
  if (schema.enum && !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    return at(`must be one of ${schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}`);
  }
  const bound = boundsProblem(value, schema);
  if (bound) return at(bound);
  if (Array.isArray(value)) return itemsProblem(value, schema, path);
  if (typeof value === 'object') return propertiesProblem(value as Record<string, unknown>, schema, path);
  return undefined;
}

function typeMismatch(value: unknown, schema: Schema): string | undefined {
  if (schema['x-kubernetes-int-or-string']) return Number.isInteger(value) || typeof value === 'string' ? undefined : 'must be an integer or a string';
  switch (schema.type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'number':
      return typeof value === 'number' ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be a list';
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : 'must be an object';
    default:
      return undefined;
  }
}

// eslint-disable-next-line complexity -- one bound per line
function boundsProblem(value: unknown, schema: Schema): string | undefined {
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && (value < schema.minimum || (schema.exclusiveMinimum && value === schema.minimum)))
      return `must be above${schema.exclusiveMinimum ? '' : ' or equal to'} ${schema.minimum}`;
    if (schema.maximum !== undefined && (value > schema.maximum || (schema.exclusiveMaximum && value === schema.maximum)))
      return `must be below${schema.exclusiveMaximum ? '' : ' or equal to'} ${schema.maximum}`;
    if (schema.multipleOf !== undefined && !Number.isInteger(value / schema.multipleOf)) return `must be a multiple of ${schema.multipleOf}`;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) return `must have at least ${schema.minLength} characters`;
    if (schema.maxLength !== undefined && length > schema.maxLength) return `must have at most ${schema.maxLength} characters`;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return `must match ${schema.pattern}`;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return `must have at least ${schema.minItems} items`;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `must have at most ${schema.maxItems} items`;
  }
  return undefined;
}

function itemsProblem(value: readonly unknown[], schema: Schema, path: string): string | undefined {
  if (!schema.items) return undefined;
  for (const [index, item] of value.entries()) {
    const problem = conformanceProblem(item, schema.items, `${path}[${index}]`);
    if (problem) return problem;
  }
  return undefined;
}

function propertiesProblem(value: Record<string, unknown>, schema: Schema, path: string): string | undefined {
  const count = Object.keys(value).length;
  if (schema.minProperties !== undefined && count < schema.minProperties) return `${path || 'the object'} must have at least ${schema.minProperties} entries`;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) return `${path || 'the object'} must have at most ${schema.maxProperties} entries`;
  for (const name of schema.required ?? []) {
    if (!(name in value)) return `${path ? `${path}.` : ''}${name} is required`;
  }
  for (const [name, item] of Object.entries(value)) {
    const child = schema.properties?.[name] ?? schema.additionalProperties;
    const problem = child ? conformanceProblem(item, child, path ? `${path}.${name}` : name) : undefined;
    if (problem) return problem;
  }
  return undefined;
}
