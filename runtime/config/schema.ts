/**
 * A small declarative schema for configuration documents (ServerConfig,
 * GeneratorConfig, and `serve`'s flags, which set the same keys), the types it
 * describes, and its one checker. The checker works on plain values, so a YAML
 * file (yaml-config.ts) and command-line flags are held to the same rules.
 */
import { didYouMean } from '../did-you-mean.js';
import type { ProblemPath } from '../problems.js';

export type Schema =
  | {
      readonly type: 'string';
      readonly pattern?: RegExp;
      readonly hint?: string;
      /** What else is wrong with the string, if anything. */
      readonly problem?: (value: string) => string | undefined;
    }
  | { readonly type: 'integer'; readonly min?: number; readonly max?: number }
  | { readonly type: 'number'; readonly min?: number; readonly max?: number }
  | { readonly type: 'boolean' }
  | { readonly type: 'enum'; readonly values: readonly string[] }
  | { readonly type: 'list'; readonly items: Schema }
  | { readonly type: 'object'; readonly fields: Readonly<Record<string, Schema>> };

export type ObjectSchema = Extract<Schema, { type: 'object' }>;

/** What a document may hold for schema S: every key optional, at every level. */
export type DocumentOf<S> = S extends { readonly type: 'object'; readonly fields: infer F } ? { -readonly [K in keyof F]?: DocumentOf<F[K]> } : ScalarOf<S, DocumentOf<ListItems<S>>>;

/** The settings schema S describes once every default is filled in: every key present. */
export type SettingsOf<S> = S extends { readonly type: 'object'; readonly fields: infer F } ? { -readonly [K in keyof F]-?: SettingsOf<F[K]> } : ScalarOf<S, SettingsOf<ListItems<S>>>;

type ListItems<S> = S extends { readonly type: 'list'; readonly items: infer I } ? I : never;
type ScalarOf<S, Item> = S extends { readonly type: 'string' }
  ? string
  : S extends { readonly type: 'integer' | 'number' }
    ? number
    : S extends { readonly type: 'boolean' }
      ? boolean
      : S extends { readonly type: 'enum'; readonly values: readonly (infer V)[] }
        ? V
        : S extends { readonly type: 'list' }
          ? Item[]
          : never;

/** `onKey`: the problem is the key itself (unknown), not its value. */
export type SchemaReport = (path: ProblemPath, message: string, onKey?: boolean) => void;

/**
 * Checks `value` against `schema`, reporting every problem; returns what was
 * valid (unknown keys and wrong values left out). An absent or null object is
 * an empty one.
 */
export function checkDocument<S extends ObjectSchema>(value: unknown, schema: S, report: SchemaReport): DocumentOf<S> {
  // The one cast: check() keeps exactly what the schema describes, which is what DocumentOf<S> spells out.
  return (check(value, schema, [], report) ?? {}) as DocumentOf<S>;
}

/** The schema of the setting at `path`, if there is one. */
export function schemaAt(schema: Schema, path: ProblemPath): Schema | undefined {
  let current: Schema | undefined = schema;
  for (const part of path) {
    if (current?.type === 'object' && typeof part === 'string') current = current.fields[part];
    else if (current?.type === 'list' && typeof part === 'number') current = current.items;
    else return undefined;
  }
  return current;
}

function check(value: unknown, spec: Schema, path: ProblemPath, report: SchemaReport): unknown {
  switch (spec.type) {
    case 'object':
      if (value == null) return {};
      if (typeof value !== 'object' || Array.isArray(value)) break;
      return checkObject(value, spec, path, report);
    case 'list': {
      if (!Array.isArray(value)) break;
      const items = value.map((item, i) => check(item, spec.items, [...path, i], report));
      return items.every((item) => item !== undefined) ? items : undefined;
    }
    case 'string':
      return checkString(value, spec, path, report);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      break;
    case 'enum':
      if (typeof value === 'string' && spec.values.includes(value)) return value;
      break;
    case 'integer':
    case 'number':
      if (inRange(value, spec)) return value;
      break;
  }
  report(path, mismatch(spec, path));
  return undefined;
}

/** What a value that is not even of the schema's type (or, for a number, out of its range) is told. */
function mismatch(spec: Exclude<Schema, { type: 'string' }>, path: ProblemPath): string {
  switch (spec.type) {
    case 'object':
      return path.length === 0 ? 'the document must be a mapping' : 'must be a mapping';
    case 'list':
      return 'must be a list';
    case 'boolean':
      return 'must be true or false';
    case 'enum':
      return `must be one of ${spec.values.join(', ')}`;
    case 'integer':
    case 'number':
      return `must be ${spec.type === 'integer' ? 'an integer' : 'a number'}${rangeText(spec.min, spec.max)}`;
  }
}

function inRange(value: unknown, spec: Extract<Schema, { type: 'integer' | 'number' }>): value is number {
  return typeof value === 'number' && (spec.type !== 'integer' || Number.isInteger(value)) && value >= (spec.min ?? -Infinity) && value <= (spec.max ?? Infinity);
}

function checkObject(value: object, spec: ObjectSchema, path: ProblemPath, report: SchemaReport): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const known = Object.keys(spec.fields);
  for (const [key, item] of Object.entries(value)) {
    const child = spec.fields[key];
    if (!child) {
      report([...path, key], `unknown key; ${didYouMean(key, known)}expected one of ${known.join(', ')}`, true);
      continue;
    }
    const checked = check(item, child, [...path, key], report);
    if (checked !== undefined) result[key] = checked;
  }
  return result;
}

function checkString(value: unknown, spec: Extract<Schema, { type: 'string' }>, path: ProblemPath, report: SchemaReport): string | undefined {
  const problem = typeof value !== 'string' ? 'must be a string' : spec.pattern && !spec.pattern.test(value) ? (spec.hint ?? `must match ${spec.pattern.toString()}`) : spec.problem?.(value);
  if (problem === undefined) return value as string;
  report(path, problem);
  return undefined;
}

function rangeText(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}
