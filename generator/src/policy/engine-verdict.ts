/**
 * The API server's own verdict on a policy expression when the policy is
 * stored: the CEL engine compiles it in the environment of its kind (the
 * creation environment, variables composed as the API server composes
 * them). Where cel-js answers otherwise, this answer wins.
 */
import { compile, type ExpressionKind } from '../cel/engine/index.js';
import type { CompileProblem } from '../cel/compile.js';

export interface VerdictPolicy {
  readonly hasParams: boolean;
  readonly variables: readonly { readonly name: string; readonly expression: string }[];
}

/** undefined when the API server accepts the expression; else its error, located (`<input>:line:column` read back to an offset). */
export function engineVerdict(policy: VerdictPolicy, kind: ExpressionKind, expression: string): CompileProblem | undefined {
  const answer = compile({ policy: { hasParams: policy.hasParams, variables: policy.variables }, kind, expression });
  if (answer.compilationError === undefined) return undefined;
  const text = answer.compilationError;
  const located = /<input>:(\d+):(\d+): (.*)/.exec(text);
  if (!located) return { offset: 0, message: text.split('\n')[0]!.replace(/^compilation failed: /, ''), compiled: text.startsWith('compilation failed') };
  const lines = expression.split('\n');
  const line = Number(located[1]);
  const offset = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + Number(located[2]) - 1;
  return { offset, message: located[3]!, compiled: true };
}
