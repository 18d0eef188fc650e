/**
 * The checker kit every option rule is written with. A checker returns the
 * value, typed, when it is valid; otherwise it reports why (with the path of
 * the offending part) and returns undefined. Checks never stop at the first
 * problem: every one is reported.
 */
import { closest } from '../did-you-mean.js';
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

/** An object (not null, not an array); with `knownKeys`, every other key is reported (checkKeys). */
export function expectObject(value: unknown, path: ProblemPath, report: Report, knownKeys?: readonly string[]): Record<string, unknown> | undefined {
  if (knownKeys) return expectObjectWithKeys(value, path, report, knownKeys)?.object;
  if (isPlainObject(value)) return value;
  report(path, `${lastName(path)} must be an object, got ${describe(value)}`);
  return undefined;
}

/**
 * An object whose keys are checked (checkKeys), with the report its own checks
 * go on with: one that leaves out what they find missing where a key was
 * written another way.
 */
export function expectObjectWithKeys(
  value: unknown,
  path: ProblemPath,
  report: Report,
  knownKeys: readonly string[],
  spellings: ApiSpellings = {},
): { object: Record<string, unknown>; report: Report } | undefined {
  const object = expectObject(value, path, report);
  if (!object) return undefined;
  const where = lastName(path);
  return { object, report: checkKeys(object, path, report, { known: knownKeys, unknown: (key, hint) => `unknown key "${key}" in ${where}; ${hint}expected ${knownKeys.join(', ')}`, spellings }) };
}

/** Keys as the Kubernetes API spells them, each with this project's name for it (`apiGroups` → `groups`). */
export type ApiSpellings = Readonly<Record<string, string>>;

/** The keys an object may have, what to say of another, and the API's spellings of them. */
export interface KeyRules {
  readonly known: readonly string[];
  /** The message for an unknown key; `hint` is `did you mean "<key>"? ` or "". */
  readonly unknown: (key: string, hint: string) => string;
  readonly spellings?: ApiSpellings;
}

/**
 * Reports every key of `object` that is not known: a key spelt as the
 * Kubernetes API spells it with this project's name for it, another with the
 * known key within a few edits. Returns the report for the object's own
 * checks, which leaves out their problems at a known key that is absent
 * because it was written another way: one cause, one message (not also
 * "groups is required" after "apiGroups").
 */
export function checkKeys(object: Record<string, unknown>, path: ProblemPath, report: Report, { known, unknown, spellings = {} }: KeyRules): Report {
  const meant = new Set<string>();
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    const ours = Object.hasOwn(spellings, key) ? spellings[key] : undefined;
    const nearest = ours ?? closest(key, known);
    if (nearest !== undefined) meant.add(nearest);
    report(
      [...path, key],
      ours !== undefined
        ? `write "${ours}", not "${key}": "${key}" is the Kubernetes API's name, "${ours}" shaper-gen's`
        : unknown(key, nearest === undefined ? '' : `did you mean "${nearest}"? `),
    );
  }
  if (meant.size === 0) return report;
  return (at, message) => {
    const key = at[path.length];
    if (at.length === path.length + 1 && typeof key === 'string' && meant.has(key) && object[key] === undefined) return;
    report(at, message);
  };
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
