/**
 * The JSON paths a kind's markers name (printer columns, the scale
 * subresource's replicas and selector, selectable fields) followed through
 * the version's schema. The API server stores a CRD whose path names no
 * field, and `kubectl get` then prints an empty column, `kubectl scale`
 * writes a field the schema prunes: here such a path is a problem naming the
 * nearest field that exists.
 *
 * Paths are kubectl's JSONPath without the braces: `.a.b`, `['a.b']`, `[0]`,
 * `[*]`, `[?(@.type=="Ready")]`. Under a field that keeps unknown fields, or
 * after `..`, nothing is known and the rest of the path is not checked.
 */
import { didYouMean } from 'shaper-gen/internal/generator';
import { expandDefinition } from '../kubernetes/structural.js';
import type { Schema } from './types.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

type Step = { readonly field: string; readonly at: number } | { readonly item: true; readonly at: number } | { readonly unknown: true; readonly at: number };

/** Where a path leads: the schema at its end (undefined when unknown), or the problem with its offset in the path. */
export type PathEnd = { readonly schema: Schema | undefined; readonly throughList: boolean } | { readonly problem: string; readonly at: number };

export function followJsonPath(jsonPath: string, root: Schema): PathEnd {
  const steps = parse(jsonPath);
  if ('problem' in steps) return steps;
  let schema: Schema | undefined = root;
  let throughList = false;
  let walked = '';
  for (const step of steps) {
    if ('unknown' in step || schema === undefined) return { schema: undefined, throughList };
    if ('item' in step) {
      if (schema.type !== 'array') return { problem: `${walked || '.'} is ${typeWords(schema)}, not a list: it has no items`, at: step.at };
      schema = schema.items;
      throughList = true;
      walked += '[*]';
      continue;
    }
    const next = field(schema, step.field, walked);
    if ('problem' in next) return { problem: next.problem, at: step.at };
    schema = next.schema;
    walked += /^[A-Za-z_][\w-]*$/.test(step.field) ? `.${step.field}` : `['${step.field}']`;
  }
  return { schema, throughList };
}

function field(schema: Schema, name: string, walked: string): { schema: Schema | undefined } | { problem: string } {
  // The API server owns a kind's metadata: the CRD says `type: object`, ObjectMeta says what is in it.
  if (walked === '' && name === 'metadata') return { schema: expandDefinition(OBJECT_META, { descriptions: false, objectMeta: 'full' }) };
  const properties = schema.properties;
  if (properties && Object.hasOwn(properties, name)) return { schema: properties[name] };
  if (schema.additionalProperties) return { schema: schema.additionalProperties };
  if (schema['x-kubernetes-preserve-unknown-fields'] || schema.anyOf || (schema.type === 'object' && !properties)) return { schema: undefined };
  const where = walked || 'the object';
  if (schema.type !== 'object') return { problem: `${where} is ${typeWords(schema)}: it has no field "${name}"` };
  const names = Object.keys(properties ?? {});
  const nearest = didYouMean(name, names).trim() || sharedStart(name, names);
  return { problem: `${where} has no field "${name}"; ${nearest || `its fields: ${names.join(', ')}`}` };
}

/** A name that begins as `name` does, for at least half of it (`ownerRefs` → ownerReferences), when few edits do not reach one. */
function sharedStart(name: string, names: readonly string[]): string {
  const shared = (other: string) => {
    let i = 0;
    while (i < name.length && i < other.length && name[i]!.toLowerCase() === other[i]!.toLowerCase()) i++;
    return i;
  };
  const best = names.reduce<[string, number] | undefined>((found, other) => (shared(other) > (found?.[1] ?? 0) ? [other, shared(other)] : found), undefined);
  return best && best[1] >= Math.max(3, Math.ceil(name.length / 2)) ? `did you mean "${best[0]}"?` : '';
}

function typeWords(schema: Schema): string {
  if (schema['x-kubernetes-int-or-string']) return 'an int-or-string';
  switch (schema.type) {
    case 'array':
      return 'a list';
    case 'integer':
      return 'an integer';
    case 'object':
      return 'an object';
    case undefined:
      return 'untyped';
    default:
      return `a ${schema.type}`;
  }
}

/** A path's steps, each with its offset in the path; a problem of form with its offset. */
function parse(jsonPath: string): Step[] | { problem: string; at: number } {
  if (!jsonPath.startsWith('.') && !jsonPath.startsWith('[')) return { problem: 'a JSON path starts with "." (e.g. .spec.replicas)', at: 0 };
  const steps: Step[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    const at = i;
    if (jsonPath.startsWith('..', i)) return [...steps, { unknown: true, at }];
    if (jsonPath[i] === '.') {
      const name = /^[^.[\]]+/.exec(jsonPath.slice(i + 1))?.[0];
      if (name === undefined) return { problem: `a field name must follow "." at ${JSON.stringify(jsonPath.slice(0, i + 1))}`, at };
      steps.push({ field: name, at: at + 1 });
      i += 1 + name.length;
      continue;
    }
    if (jsonPath[i] !== '[') return { problem: `unexpected ${JSON.stringify(jsonPath[i])}`, at };
    const close = closingBracket(jsonPath, i);
    if (close === -1) return { problem: `unclosed "[" at ${JSON.stringify(jsonPath.slice(i))}`, at };
    const inside = jsonPath.slice(i + 1, close).trim();
    const quoted = /^(['"])(.*)\1$/.exec(inside);
    if (quoted) steps.push({ field: quoted[2]!, at: at + 2 });
    else if (/^(\*|-?\d+|-?\d*:-?\d*(:-?\d+)?|\?\(.*\))$/.test(inside)) steps.push({ item: true, at });
    else if (/^-?\d+(,-?\d+)+$/.test(inside)) steps.push({ item: true, at });
    else return [...steps, { unknown: true, at }];
    i = close + 1;
  }
  return steps;
}

function closingBracket(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}
