/**
 * The one options argument of a shaper-gen decorator, evaluated statically,
 * with a way back from any option path to the source node that wrote it — so
 * that every problem, from an option rule or a CEL compiler, is reported at
 * `file:line:col` in the user's code.
 */
import type { ts as TS } from 'ts-morph';
import { formatProblemPath, type ProblemPath } from 'shaper-gen/internal/generator';
import { diagnosticAt, diagnosticInString, type Diagnostic } from '../diagnostics.js';
import { evaluateStatically, type NameResolver } from './evaluate.js';
import { loadTypeScript } from './compiler.js';

const ts = loadTypeScript();

export interface DecoratorArgument {
  readonly value: unknown;
  /** The node that wrote the option at `path`, or the nearest enclosing one. */
  readonly locate: (path: ProblemPath) => TS.Node;
  /** Reports a problem at the option's node; `offset` is a position inside a string literal (a CEL column). */
  readonly report: (classNode: TS.ClassDeclaration, decoratorName: string, path: ProblemPath, message: string, offset?: number) => void;
}

/** The evaluated argument, or undefined with the reasons added to `diagnostics`. */
export function decoratorArgument(decorator: TS.Decorator, usage: string, resolver: NameResolver, diagnostics: Diagnostic[]): DecoratorArgument | undefined {
  const call = decorator.expression;
  if (!ts.isCallExpression(call) || call.arguments.length !== 1) {
    diagnostics.push(diagnosticAt(decorator, usage));
    return undefined;
  }
  const argument = call.arguments[0]!;
  const evaluation = evaluateStatically(argument, resolver);
  if (evaluation.diagnostics.length > 0) {
    diagnostics.push(...evaluation.diagnostics);
    return undefined;
  }
  const locate = (path: ProblemPath): TS.Node => {
    for (let length = path.length; length > 0; length--) {
      const node = evaluation.locations.get(formatProblemPath(path.slice(0, length)));
      if (node) return node;
    }
    return argument;
  };
  const report: DecoratorArgument['report'] = (classNode, decoratorName, path, message, offset) => {
    const node = locate(path);
    // Options defined in another file name the class they configure.
    const context = node.getSourceFile() !== decorator.getSourceFile() ? ` (in ${decoratorName} of ${classNode.name?.text ?? 'anonymous class'})` : '';
    diagnostics.push(offset === undefined ? diagnosticAt(node, `${message}${context}`) : diagnosticInString(node, offset, `${message}${context}`));
  };
  return { value: evaluation.value, locate, report };
}

/** The class's name when it is a named export, else a diagnostic saying why it must be. */
export function exportedClassName(classNode: TS.ClassDeclaration, decoratorName: string, why: string, diagnostics: Diagnostic[]): string | undefined {
  const className = classNode.name?.text;
  const flags = ts.getCombinedModifierFlags(classNode);
  if (className && flags & ts.ModifierFlags.Export && !(flags & ts.ModifierFlags.Default)) return className;
  diagnostics.push(diagnosticAt(classNode.name ?? classNode, `class ${className ?? '(anonymous)'} with ${decoratorName} must be a named export (export class …) ${why}`));
  return undefined;
}
