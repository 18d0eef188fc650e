/**
 * The field-by-field copy `shaper-gen create conversion` writes for each
 * direction, from the schema of the version it reads: an object literal
 * naming every field, nested objects and the items of lists of objects
 * mapped the same way. Because each field is named, a field renamed or moved
 * in either version's type is a compile error at the line that copies it
 * (an object literal may not name a field its type lacks; a read of a field
 * the type lacks fails), where a spread (`{ ...spoke }`) would still compile
 * and lose it. Maps, fields that keep unknown content and `metadata` are
 * copied whole.
 */
import type { Schema } from '../crd/types.js';

/** Deeper than this, fields are copied whole. */
const MAX_DEPTH = 8;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `{ apiVersion: spoke.apiVersion, …, spec: spoke.spec && { replicas: spoke.spec.replicas } }` at `indent`. */
export function fieldCopy(schema: Schema, from: string, indent: string): string {
  return copy(schema, from, indent, 0);
}

function copy(schema: Schema, from: string, indent: string, depth: number): string {
  if (!schema.properties || schema['x-kubernetes-preserve-unknown-fields'] || depth >= MAX_DEPTH) return from;
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(schema.properties).map(([name, property]) => {
    const access = IDENTIFIER.test(name) ? `${from}.${name}` : `${from}[${JSON.stringify(name)}]`;
    const optional = !required.has(name) || property.nullable === true;
    return `${indent}  ${IDENTIFIER.test(name) ? name : JSON.stringify(name)}: ${value(property, access, optional, `${indent}  `, depth + 1)},`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function value(schema: Schema, access: string, optional: boolean, indent: string, depth: number): string {
  if (schema.type === 'array' && schema.items?.properties && depth < MAX_DEPTH) {
    const item = `item${depth}`;
    return `${access}${optional ? '?' : ''}.map((${item}) => (${copy(schema.items, item, indent, depth)}))`;
  }
  const inner = copy(schema, access, indent, depth);
  return inner === access || !optional ? inner : `${access} && ${inner}`;
}
