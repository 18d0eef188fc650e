import path from 'node:path';
import type { ts } from 'ts-morph';
import { compareText } from './compare-text.js';
import { loadTypeScript } from './typescript.js';

/** A problem found in a source or config file, printed as `file:line:col: message`. */
export interface Diagnostic {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly message: string;
}

export function diagnosticAt(node: ts.Node, message: string): Diagnostic {
  const sourceFile = node.getSourceFile();
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
  return { file: sourceFile.fileName, line: line + 1, column: character + 1, message };
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
  return { file: sourceFile.fileName, line: line + 1, column: character + 1, message };
}

export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) => compareText(a.file, b.file) || a.line - b.line || a.column - b.column || compareText(a.message, b.message),
  );
}

export function formatDiagnostic(diagnostic: Diagnostic, cwd = process.cwd()): string {
  const file = path.isAbsolute(diagnostic.file) ? path.relative(cwd, diagnostic.file) : diagnostic.file;
  return `${file}:${diagnostic.line}:${diagnostic.column}: ${diagnostic.message}`;
}

/** Locale-independent ordering, so output does not depend on the machine. */

/** Thrown when generation must stop; carries every problem found. */
export class GenerationError extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    super(`${diagnostics.length} problem(s) found`);
    this.name = 'GenerationError';
  }
}
