/**
 * docs/reference/chart-values.md from charts/shaper-webhooks/values.yaml, as
 * helm-docs reads a values file: a comment block whose line starts with
 * `# --` describes the key below it (continued by the comment lines after
 * it); a described map is one row with its whole default. Keys that no
 * description covers are listed too, without one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { code, generatedHeader, literal, paragraph, table } from './markdown.ts';

const VALUES_FILE = 'charts/shaper-webhooks/values.yaml';
const KEY = /^(\s*)([A-Za-z0-9_.-]+):(?:\s|$)/;

export interface ValueDoc {
  readonly key: string;
  readonly type: string;
  readonly default: unknown;
  readonly description: string;
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

function at(values: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], values);
}

function isLeaf(value: unknown): boolean {
  return typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0;
}

/** Every described key, and every leaf no description covers, in file order. */
export function readValueDocs(text: string): ValueDoc[] {
  const values = parse(text) as Record<string, unknown>;
  const docs: ValueDoc[] = [];
  const stack: { indent: number; key: string; described: boolean }[] = [];
  let comments: string[] = [];
  let listOwner: number | undefined;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    const indent = line.length - line.trimStart().length;
    if (trimmed === '') {
      comments = [];
      continue;
    }
    if (listOwner !== undefined && indent > listOwner) continue;
    listOwner = undefined;
    if (trimmed.startsWith('#')) {
      comments.push(trimmed);
      continue;
    }
    if (trimmed.startsWith('- ')) {
      listOwner = stack.at(-1)?.indent ?? -1;
      continue;
    }
    const match = KEY.exec(line);
    if (!match) {
      comments = [];
      continue;
    }
    while (stack.length > 0 && stack.at(-1)!.indent >= indent) stack.pop();
    const key = [...stack.map((entry) => entry.key), match[2]!].join('.');
    const start = comments.findLastIndex((comment) => /^# --(\s|$)/.test(comment));
    const description = start === -1 ? undefined : paragraph(comments.slice(start).map((comment, i) => (i === 0 ? comment.replace(/^# --\s?/, '') : comment.replace(/^#\s?/, ''))));
    comments = [];
    const covered = stack.some((entry) => entry.described);
    const value = at(values, key);
    if (description !== undefined || (!covered && isLeaf(value))) docs.push({ key, type: typeOf(value), default: value, description: description ?? '' });
    stack.push({ indent, key: match[2]!, described: description !== undefined || covered });
  }
  return docs;
}

export function chartValuesPage(root: string): string {
  const docs = readValueDocs(readFileSync(path.join(root, VALUES_FILE), 'utf8'));
  if (docs.length === 0) throw new Error(`scripts/docs: no values found in ${VALUES_FILE}`);
  return `${[
    generatedHeader('Chart values', [VALUES_FILE]),
    '',
    paragraph(`The values of ${code('charts/shaper-webhooks')}, the sample's chart. A chart that ${code('shaper-gen init')} writes
      (${code('generator/scaffold/chart/')}) has the same values with the project's name and image; a test keeps the two
      identical apart from those (${code('test/e2e/scaffold/sample-chart.test.ts')}). ${code('values.schema.json')} refuses keys
      that are not listed here. The descriptions are the ${code('# --')} comments of ${code('values.yaml')}.`),
    '',
    table(
      ['key', 'type', 'default', 'description'],
      docs.map((doc) => [code(doc.key), doc.type, code(literal(doc.default)), doc.description || '—']),
    ),
  ].join('\n')}\n`;
}
