/**
 * One CEL expression compiled as the API server compiles it: trimmed, within
 * cel-go's size limit, parsed, type-checked, then the compile-time literal
 * checks (validators.ts). Offsets are into the untrimmed text, so that a
 * problem points at its column in the user's source.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { rewriteMessageConstruction } from './message-construction.js';
import { declaredObjectTypes } from './schema-types.js';
import { astProblems, type CheckedNode } from './validators.js';

/** cel-go's parser limit (parser.go): expression size in code points. */
const MAX_CODE_POINTS = 100_000;

interface CheckResult {
  valid: boolean;
  type?: string;
  error?: { message: string; summary?: string; range?: { start: number; end: number } };
}
interface Parsed {
  readonly ast: CheckedNode;
  check(): CheckResult;
}

export interface CompileProblem {
  /** Where in the (untrimmed) expression (0-based). */
  readonly offset: number;
  readonly message: string;
  /** False for a result-type problem, which the API server words without "compilation failed". */
  readonly compiled: boolean;
}

export type Compiled = { readonly type: string; readonly problem?: undefined } | { readonly type?: undefined; readonly problem: CompileProblem };

/**
 * `messages`: the environment has the patch types (mutation-library.ts), and
 * message construction (`Object{…}`) is rewritten before parsing, with
 * offsets mapped back to `expression`.
 */
export function compileExpression(env: Environment, expression: string, messages = false): Compiled {
  const leading = expression.length - expression.trimStart().length;
  const trimmed = expression.trim();
  const rewritten = messages ? rewriteMessageConstruction(trimmed) : undefined;
  const source = rewritten?.text ?? trimmed;
  const fail = (offset: number, message: string, compiled = true): Compiled => ({ problem: { offset: leading + (rewritten ? rewritten.originOf(offset) : offset), message, compiled } });
  if ([...trimmed].length > MAX_CODE_POINTS) return fail(0, `expression code point size exceeds limit: size: ${[...trimmed].length}, limit ${MAX_CODE_POINTS}`);
  let parsed: Parsed;
  try {
    parsed = env.parse(source) as Parsed;
  } catch (error) {
    const { summary, message, range } = error as NonNullable<CheckResult['error']>;
    return fail(range?.start ?? 0, summary ?? message.split('\n')[0]!);
  }
  const result = parsed.check();
  if (result.error) return fail(result.error.range?.start ?? 0, result.error.summary ?? result.error.message.split('\n')[0]!);
  const [problem] = astProblems(parsed.ast, source, declaredObjectTypes(env));
  if (problem) return fail(problem.offset, problem.message);
  return { type: refinedType(env, parsed.ast, source, result.type ?? 'dyn') };
}

/** Whether the expression holds an optional field or index access (`.?a`, `[?'a']`). */
function navigatesOptionally(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const { op, args } = node as CallNode;
  if (op === '.?' || op === '[?]') return true;
  return Array.isArray(args) && args.some((arg) => (Array.isArray(arg) ? arg.some(navigatesOptionally) : navigatesOptionally(arg)));
}

interface CallNode {
  readonly op: string;
  readonly args: unknown;
  readonly start?: number;
  readonly end?: number;
}

/**
 * cel-go types `object.?a.orValue(x)` — optional navigation into dyn, then
 * orValue — as x's type (the optional's type parameter is still free), where
 * cel-js says dyn; the API server then accepts it as a message or an audit
 * annotation value. `optional.of(dyn).orValue(x)` stays dyn in both. Only the
 * result's type decides acceptance, so only the outermost call is refined.
 */
function refinedType(env: Environment, ast: CheckedNode, source: string, type: string): string {
  const root = ast as unknown as CallNode;
  if (type !== 'dyn' || root.op !== 'rcall' || !Array.isArray(root.args) || root.args[0] !== 'orValue') return type;
  const [, receiver, argumentList] = root.args as [string, CallNode, CallNode[] | undefined];
  const argument = argumentList?.[0];
  const text = (node: CallNode | undefined) => (node?.start === undefined || node.end === undefined ? undefined : source.slice(node.start, node.end));
  const [receiverText, argumentText] = [text(receiver), text(argument)];
  if (receiverText === undefined || argumentText === undefined || !navigatesOptionally(receiver)) return type;
  const receiverType = env.check(receiverText).type;
  if (receiverType !== 'optional<dyn>' && receiverType !== 'dyn') return type;
  return env.check(argumentText).type ?? type;
}

/**
 * The problem, or a result-type problem when the type is none of `allowed`.
 * The API server wants the exact type (a dyn result is refused); with
 * `dynPasses`, as in a schema-typed check beside it, dyn is left to that one.
 */
export function resultTypeProblem(compiled: Compiled, allowed: readonly string[], dynPasses = false): CompileProblem | undefined {
  if (compiled.problem) return compiled.problem;
  if ((dynPasses && compiled.type === 'dyn') || allowed.includes(compiled.type)) return undefined;
  return { offset: 0, message: `must evaluate to ${allowed.join(' or ')} but got ${compiled.type}`, compiled: false };
}
