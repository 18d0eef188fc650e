/**
 * The one shape of "what is wrong with a configuration": `@Webhook` options,
 * the ServerConfig and GeneratorConfig YAML files, command-line flags and the
 * generator's source diagnostics all report a Problem, and all throw
 * ConfigError when there is at least one.
 */
import path from 'node:path';

/** Where in a value a problem is: `['rules', 0, 'operations', 1]`, printed `rules[0].operations[1]`. */
export type ProblemPath = readonly (string | number)[];

/** A place in a file; line and column are 1-based. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export interface Problem {
  /** The setting concerned, or `[]` when the message says it (or concerns the whole). */
  readonly path: ProblemPath;
  readonly message: string;
  /** Where it was written, when it was read from a file. */
  readonly source?: SourceLocation;
}

/** A problem read from a file, which says where. */
export interface LocatedProblem extends Problem {
  readonly source: SourceLocation;
}

export interface FormatOptions {
  /** Print source files relative to this directory. */
  readonly cwd?: string;
  /** What to call the empty path (`options`); without it, no path is printed. */
  readonly root?: string;
}

export function formatProblemPath(at: ProblemPath): string {
  return at.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');
}

/** `file:line:col: path: message`, leaving out what the problem does not have. */
export function formatProblem(problem: Problem, options: FormatOptions = {}): string {
  const parts: string[] = [];
  const { source } = problem;
  if (source) {
    const file = options.cwd !== undefined && path.isAbsolute(source.file) ? path.relative(options.cwd, source.file) : source.file;
    parts.push(`${file}:${source.line}:${source.column}`);
  }
  const at = formatProblemPath(problem.path) || options.root;
  if (at) parts.push(at);
  parts.push(problem.message);
  return parts.join(': ');
}

/** Thrown when a configuration is invalid; carries every problem found, not just the first. */
export class ConfigError extends Error {
  override name = 'ConfigError';

  /** `subject` names what was invalid in the message: "server configuration", "@Webhook options (/validate-x)". */
  constructor(
    readonly problems: readonly Problem[],
    subject = 'configuration',
    format: FormatOptions = {},
  ) {
    super(`invalid ${subject}:\n${problems.map((problem) => `  ${formatProblem(problem, format)}`).join('\n')}`);
  }
}
