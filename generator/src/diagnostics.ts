/**
 * The generator's problems: runtime/problems.ts's Problem, always with the
 * place in a source or config file it was found at, printed as
 * `file:line:col: message`. Generation stops with a ConfigError holding them.
 */
import type { ts } from 'ts-morph';
import { formatProblem, type LocatedProblem, type Problem } from 'shaper-gen/internal/generator';
import { compareText } from './compare-text.js';
import { loadTypeScript } from './typescript/compiler.js';

/** A problem found in a source or config file. */
export type Diagnostic = LocatedProblem;

/** A problem with a whole file (reported at 1:1), or at a line and column of it. */
export function diagnosticIn(file: string, message: string, line = 1, column = 1): Diagnostic {
  return { path: [], message, source: { file, line, column } };
}

export function diagnosticAt(node: ts.Node, message: string): Diagnostic {
  const sourceFile = node.getSourceFile();
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
  return diagnosticIn(sourceFile.fileName, message, line + 1, character + 1);
}

/**
 * A problem at a character inside a string literal (a CEL error's column): the
 * literal's own position when it holds escapes, whose source columns differ
 * from the value's.
 */
export function diagnosticInString(node: ts.Node, offset: number, message: string): Diagnostic {
  // Only called with nodes, so the compiler is loaded by then.
  const { isStringLiteral, isNoSubstitutionTemplateLiteral } = loadTypeScript();
  const plain = (isStringLiteral(node) || isNoSubstitutionTemplateLiteral(node)) && node.getText().slice(1, -1) === node.text;
  if (!plain) return diagnosticAt(node, message);
  const sourceFile = node.getSourceFile();
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile) + 1 + offset);
  return diagnosticIn(sourceFile.fileName, message, line + 1, character + 1);
}

/** By file, line and column, then message; locale-independent, so output does not depend on the machine. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => compareText(a.source.file, b.source.file) || a.source.line - b.source.line || a.source.column - b.source.column || compareText(a.message, b.message));
}

export function formatDiagnostic(diagnostic: Problem, cwd = process.cwd()): string {
  return formatProblem(diagnostic, { cwd });
}
