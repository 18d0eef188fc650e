/**
 * A case as a TypeScript source file, one decorated class per webhook, every
 * option value starting on a line of its own: a diagnostic's line names the
 * webhook and the option path it is about.
 */
import type { ProblemPath as OptionPath } from '../../../runtime/problems.js';
import type { Case } from './corpus.js';

export interface CaseSource {
  readonly text: string;
  /** 1-based line → [webhook index, ...option path] of the value that starts there. */
  readonly pathAt: ReadonlyMap<number, OptionPath>;
}

export function caseSource(testCase: Case): CaseSource {
  const lines: string[] = ["import { Webhook } from 'shaper-gen';"];
  const pathAt = new Map<number, OptionPath>();
  const emit = (text: string, path: OptionPath) => {
    lines.push(text);
    pathAt.set(lines.length, path);
  };
  const print = (value: unknown, path: OptionPath, indent: string, lead: string, tail: string): void => {
    const entries = Array.isArray(value)
      ? value.map((item) => ['', item] as const)
      : isObject(value)
        ? Object.entries(value).map(([key, item]) => [`${JSON.stringify(key)}: `, item] as const)
        : undefined;
    if (!entries || entries.length === 0) return emit(`${indent}${lead}${entries ? (Array.isArray(value) ? '[]' : '{}') : literal(value)}${tail}`, path);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    emit(`${indent}${lead}${open}`, path);
    entries.forEach(([key, item], i) => {
      const name = Array.isArray(value) ? i : Object.keys(value as object)[i]!;
      print(item, [...path, name], `${indent}  `, key, i < entries.length - 1 ? ',' : '');
    });
    lines.push(`${indent}${close}${tail}`);
  };
  testCase.webhooks.forEach((options, index) => {
    print(options, [index], '', '@Webhook(', ')');
    lines.push(`export class Case${index} { default() {} validateCreate() {} }`);
  });
  return { text: `${lines.join('\n')}\n`, pathAt };
}

/** JSON, with the two characters TypeScript counts as line breaks escaped so that lines stay one per value. */
function literal(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
