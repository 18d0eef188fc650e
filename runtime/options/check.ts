/**
 * The checker kit every option rule is written with. A checker returns the
 * value, typed, when it is valid; otherwise it reports why (with the path of
 * the offending part) and returns undefined. Checks never stop at the first
 * problem: every one is reported.
 */
import { didYouMean } from '../did-you-mean.js';
import type { ProblemPath } from '../problems.js';

export type Report = (path: ProblemPath, message: string) => void;

/** Checks one value and returns it typed, or reports and returns undefined. */
export type Checker<T> = (value: unknown, path: ProblemPath, report: Report) => T | undefined;

export function expectString(value: unknown, path: ProblemPath, report: Report): string | undefined {
  if (typeof value === 'string') return value;
  report(path, `${lastName(path)} must be a string, got ${describe(value)}`);
  return undefined;
}

export function expectArray(value: unknown, path: ProblemPath, report: Report): unknown[] | undefined {
  if (Array.isArray(value)) return value as unknown[];
  report(path, `${lastName(path)} must be an array, got ${describe(value)}`);
  return undefined;
}

/** An object (not null, not an array); with `knownKeys`, every other key is reported. */
export function expectObject(value: unknown, path: ProblemPath, report: Report, knownKeys?: readonly string[]): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) {
    report(path, `${lastName(path)} must be an object, got ${describe(value)}`);
    return undefined;
  }
  if (knownKeys) {
    for (const key of Object.keys(value)) {
      if (!knownKeys.includes(key)) report([...path, key], `unknown key "${key}" in ${lastName(path)}; ${didYouMean(key, knownKeys)}expected ${knownKeys.join(', ')}`);
    }
  }
  return value;
}

/** One of `allowed`, by its literal type. */
export function oneOf<const T extends string>(allowed: readonly T[]): Checker<T> {
  return (value, path, report) => {
    const found = allowed.find((item) => item === value);
    if (found === undefined) report(path, `${lastName(path)} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(value)}`);
    return found;
  };
}

/** Each item checked (every problem reported); the list when all are valid. */
export function eachItem<T>(items: readonly unknown[], path: ProblemPath, report: Report, check: Checker<T>): T[] | undefined {
  const checked = items.map((item, i) => check(item, [...path, i], report));
  return allDefined(checked);
}

export function allDefined<T>(items: readonly (T | undefined)[]): T[] | undefined {
  const defined = items.filter((item): item is T => item !== undefined);
  return defined.length === items.length ? defined : undefined;
}

/** Reports every repeated entry; true when there is none. */
export function reportDuplicates(values: readonly unknown[], path: ProblemPath, report: Report): boolean {
  const seen = new Set<unknown>();
  let unique = true;
  values.forEach((value, i) => {
    if (seen.has(value)) {
      report([...path, i], `duplicate entry ${describe(value)}`);
      unique = false;
    }
    seen.add(value);
  });
  return unique;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `operations[1]`: the last name in the path, with the index after it if any. */
export function lastName(path: ProblemPath): string {
  const name = [...path].reverse().find((part) => typeof part === 'string');
  const index = path.at(-1);
  return typeof index === 'number' && name !== undefined ? `${name}[${index}]` : (name ?? 'value');
}

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  const other = value as bigint | boolean | number | symbol | (() => unknown);
  return `${typeof value} ${String(other)}`;
}

/**
 * Runs a composite check with a report that remembers being called: the result
 * only when nothing was reported, so that a checker returns undefined exactly
 * when it found a problem.
 */
export function validOnly<T>(report: Report, build: (report: Report) => T | undefined): T | undefined {
  let reported = false as boolean; // not narrowed to false: the report below sets it
  const result = build((path, message) => {
    reported = true;
    report(path, message);
  });
  return reported ? undefined : result;
}
