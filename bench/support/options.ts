/**
 * A benchmark's command-line options, declared once: their kind, default and
 * meaning. bench/run.ts parses them (strictly: an unknown option or a value
 * that is not a number stops the run before anything starts), prints them for
 * `--help`, and hands the benchmark's main the typed values.
 */
import { parseArgs } from 'node:util';

interface Described {
  readonly description: string;
}
export type OptionSpec =
  | (Described & { readonly kind: 'number'; readonly default: number })
  | (Described & { readonly kind: 'numbers'; readonly default: readonly number[] })
  | (Described & { readonly kind: 'string'; readonly default?: string })
  | (Described & { readonly kind: 'flag' });
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type ValueOf<S extends OptionSpec> = S extends { kind: 'number' }
  ? number
  : S extends { kind: 'numbers' }
    ? readonly number[]
    : S extends { kind: 'flag' }
      ? boolean
      : S extends { default: string }
        ? string
        : string | undefined;
export type OptionValues<S extends OptionSpecs> = { readonly [K in keyof S]: ValueOf<S[K]> };

function number(name: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) throw new Error(`bench: --${name} ${text}: expected a number ≥ 0`);
  return value;
}

/** Parses `argv` against `specs`; throws on an unknown option, a missing value or a malformed number. */
export function parseOptions<S extends OptionSpecs>(specs: S, argv: readonly string[]): OptionValues<S> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { type: spec.kind === 'flag' ? ('boolean' as const) : ('string' as const) }])),
    }));
  } catch (error) {
    throw new Error(`bench: ${error instanceof Error ? error.message : String(error)} (--help lists the options)`, { cause: error });
  }
  const parsed: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const given = values[name];
    if (spec.kind === 'flag') parsed[name] = given === true;
    else if (typeof given !== 'string') parsed[name] = spec.default;
    else if (spec.kind === 'number') parsed[name] = number(name, given);
    else if (spec.kind === 'numbers') parsed[name] = given.split(',').map((part) => number(name, part));
    else parsed[name] = given;
  }
  return parsed as OptionValues<S>;
}

/** One line per option, for --help. */
export function describeOptions(specs: OptionSpecs): string {
  const rows = Object.entries(specs).map(([name, spec]) => {
    const value = spec.kind === 'flag' ? '' : spec.kind === 'numbers' ? ' <n,n,…>' : spec.kind === 'number' ? ' <n>' : ' <text>';
    const fallback = spec.kind === 'flag' || spec.default === undefined ? '' : ` (default ${Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default)})`;
    return [`--${name}${value}`, `${spec.description}${fallback}`] as const;
  });
  if (rows.length === 0) return '  (no options)';
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`).join('\n');
}
