/**
 * Reads a YAML configuration file against a small declarative schema and
 * reports every unknown key and wrong type with its YAML path, line and column.
 */
import { didYouMean } from './did-you-mean.js';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';

export type Schema =
  | { readonly type: 'string'; readonly pattern?: RegExp; readonly hint?: string }
  | { readonly type: 'integer'; readonly min?: number; readonly max?: number }
  | { readonly type: 'number'; readonly min?: number; readonly max?: number }
  | { readonly type: 'boolean' }
  | { readonly type: 'enum'; readonly values: readonly string[] }
  | { readonly type: 'list'; readonly items: Schema }
  | { readonly type: 'object'; readonly fields: Readonly<Record<string, Schema>> };

export interface YamlProblem {
  readonly line: number;
  readonly column: number;
  /** Dotted YAML path, like `webhook.port` or `sources[1]`. */
  readonly path: string;
  readonly message: string;
}

export interface YamlReadResult {
  readonly value: Record<string, unknown>;
  readonly problems: readonly YamlProblem[];
}

/** Parses `text` and checks it against an object schema. An empty file is an empty object. */
export function readYamlConfig(text: string, schema: Extract<Schema, { type: 'object' }>): YamlReadResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problems: YamlProblem[] = [];
  const position = (node: YamlNode | null | undefined, offset?: number) => {
    const at = lineCounter.linePos(offset ?? node?.range?.[0] ?? 0);
    return { line: at.line, column: at.col };
  };
  for (const error of document.errors) {
    problems.push({ ...position(null, error.pos[0]), path: '', message: error.message.split('\n')[0]! });
  }
  if (problems.length > 0) return { value: {}, problems };

  const check = (node: unknown, spec: Schema, path: string): unknown => {
    const report = (message: string, at: unknown = node) =>
      problems.push({ ...position(at as YamlNode), path, message: `${path || 'document'}: ${message}` });
    if (spec.type === 'object') {
      if (node == null || (isScalar(node) && node.value == null)) return {};
      if (!isMap(node)) return report('must be a mapping'), undefined;
      const result: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const childPath = path ? `${path}.${key}` : key;
        const child = spec.fields[key];
        if (!child) {
          problems.push({
            ...position(pair.key as YamlNode),
            path: childPath,
            message: `${childPath}: unknown key; ${didYouMean(key, Object.keys(spec.fields))}expected one of ${Object.keys(spec.fields).join(', ')}`,
          });
          continue;
        }
        result[key] = check(pair.value, child, childPath);
      }
      return result;
    }
    if (spec.type === 'list') {
      if (!isSeq(node)) return report('must be a list'), undefined;
      return node.items.map((item, i) => check(item, spec.items, `${path}[${i}]`));
    }
    const value = isScalar(node) ? node.value : undefined;
    switch (spec.type) {
      case 'string':
        if (typeof value !== 'string') return report('must be a string'), undefined;
        if (spec.pattern && !spec.pattern.test(value)) return report(spec.hint ?? `must match ${spec.pattern}`), undefined;
        return value;
      case 'boolean':
        if (typeof value !== 'boolean') return report('must be true or false'), undefined;
        return value;
      case 'enum':
        if (typeof value !== 'string' || !spec.values.includes(value)) return report(`must be one of ${spec.values.join(', ')}`), undefined;
        return value;
      case 'integer':
      case 'number': {
        const whole = spec.type === 'integer';
        const ok = typeof value === 'number' && (!whole || Number.isInteger(value)) && value >= (spec.min ?? -Infinity) && value <= (spec.max ?? Infinity);
        if (!ok) return report(`must be ${whole ? 'an integer' : 'a number'}${rangeText(spec.min, spec.max)}`), undefined;
        return value;
      }
    }
  };

  const value = check(document.contents, schema, '');
  return { value: (value as Record<string, unknown>) ?? {}, problems };
}

function rangeText(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}
