/**
 * A schema written as block YAML inside a Helm template. A schema is data of
 * any depth, which handlebars templates (ADR 0002) cannot recurse over
 * readably; this writes it with the same rule as the templates' `q` helper:
 * every string a double-quoted JSON string in which `{{` becomes
 * `{{ "{{" }}`, so that no description, pattern or CEL rule can start a Helm
 * action. Keys are plain where YAML and Helm read them as written. The
 * output is deterministic: keys in SCHEMA_KEY_ORDER, then as given.
 */
import { yamlQuote } from '../chart/render.js';
import { SCHEMA_KEY_ORDER } from './types.js';

/** Plain keys: letters, digits, `-`, `_`, `.`, `/`, not starting with a YAML indicator or looking like a number or keyword. */
const PLAIN_KEY = /^[A-Za-z_][\w.\-/]*$/;
const YAML_KEYWORDS = /^(true|false|yes|no|on|off|null|y|n|~)$/i;

/** The lines of `value` (an object) as block YAML, each indented by `indent` spaces. */
export function blockYaml(value: Readonly<Record<string, unknown>>, indent: number): string {
  return objectLines(value, indent).join('\n');
}

function objectLines(value: Readonly<Record<string, unknown>>, indent: number): string[] {
  const pad = ' '.repeat(indent);
  return orderedEntries(value).flatMap(([key, item]) => {
    const head = `${pad}${yamlKey(key)}:`;
    if (isInline(item)) return [`${head} ${inline(item)}`];
    return Array.isArray(item) ? [head, ...listLines(item, indent + 2)] : [head, ...objectLines(item as Record<string, unknown>, indent + 2)];
  });
}

function listLines(items: readonly unknown[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  return items.flatMap((item) => {
    if (isInline(item)) return [`${pad}- ${inline(item)}`];
    if (Array.isArray(item)) return [`${pad}-`, ...listLines(item, indent + 2)];
    const [first, ...rest] = objectLines(item as Record<string, unknown>, indent + 2);
    return [`${pad}- ${first!.slice(indent + 2)}`, ...rest];
  });
}

/** Scalars, empty collections and lists of scalars fit on one line. */
function isInline(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every((item) => item === null || typeof item !== 'object');
  return Object.keys(value).length === 0;
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(scalar).join(', ')}]`;
  if (value !== null && typeof value === 'object') return '{}';
  return scalar(value);
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return yamlQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  throw new Error(`cannot write ${typeof value} as YAML`);
}

function yamlKey(key: string): string {
  return PLAIN_KEY.test(key) && !YAML_KEYWORDS.test(key) ? key : yamlQuote(key);
}

const RANK = new Map<string, number>(SCHEMA_KEY_ORDER.map((key, index) => [key, index]));

/** Schema keys in SCHEMA_KEY_ORDER; other keys (properties' names) as given. */
function orderedEntries(value: Readonly<Record<string, unknown>>): [string, unknown][] {
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  if (!entries.every(([key]) => RANK.has(key))) return entries;
  return entries.sort(([a], [b]) => RANK.get(a)! - RANK.get(b)!);
}
