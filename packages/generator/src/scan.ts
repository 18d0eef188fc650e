/**
 * Finds the classes decorated with shaper-gen's `@Webhook` and turns each
 * decorator's argument into validated, defaulted options, reporting every
 * problem with its source location.
 *
 * Two passes over the same code, one result: first syntax only (no program,
 * no type checker: syntax-resolver.ts), which answers for the usual shape of
 * decorated code; where it cannot be sure, or finds any problem at all, the
 * scan is done again through the type checker, which also words every
 * diagnostic.
 */
import type { ts as TS } from 'ts-morph';
import { checkWebhookSet, formatProblemPath, handlerShapeProblem, type ProblemPath, type ResolvedWebhook, resolveWebhookOptions } from 'shaper-gen/internal/generator';
import { checkMatchConditions } from './cel.js';
import { diagnosticAt, diagnosticInString, type Diagnostic } from './diagnostics.js';
import { checkerResolver, evaluateStatically, type NameResolver } from './evaluate.js';
import { buildScanProgram, prepareScan, type ScanInput } from './program.js';
import { NotSyntactic, SyntaxResolver } from './syntax-resolver.js';
import { loadTypeScript } from './typescript.js';

const ts = loadTypeScript();

/** The JSDoc tag on the `Webhook` function that marks it as shaper-gen's decorator. */
const MARKER_TAG = 'shaperGenMarker';

export interface DecoratedWebhook {
  readonly className: string;
  readonly file: string;
  readonly webhook: ResolvedWebhook;
}

export interface ScanResult {
  readonly webhooks: readonly DecoratedWebhook[];
  readonly diagnostics: readonly Diagnostic[];
  readonly candidateFiles: number;
  /** Which pass answered, and why the syntax-only one did not (for tests and profiling). */
  readonly pass: 'syntax' | 'checker';
  readonly checkerReason?: string;
}

interface Found extends DecoratedWebhook {
  readonly decorator: TS.Decorator;
  readonly locate: (path: ProblemPath) => TS.Node;
}

export interface ScanOptions {
  /** Skip the syntax-only pass (tests compare the two). */
  readonly checkerOnly?: boolean;
}

export function scanWebhooks(tsconfigPath: string, files: readonly string[], options: ScanOptions = {}): ScanResult {
  const input = prepareScan(tsconfigPath, files);
  const syntaxOnly = options.checkerOnly ? { reason: 'checkerOnly' } : scanWithoutChecker(input);
  if (syntaxOnly.result) return syntaxOnly.result;
  const { checker, candidates } = buildScanProgram(input);
  return { ...scanSourceFiles(candidates, checkerResolver(checker)), pass: 'checker', checkerReason: syntaxOnly.reason };
}

/** The syntax-only pass; no result where the checker must decide or word a diagnostic. */
function scanWithoutChecker(input: ScanInput): { result?: ScanResult; reason: string } {
  if (input.augmentations) return { reason: 'a source file declares a module augmentation or globals' };
  try {
    const resolver = new SyntaxResolver(input);
    const result = scanSourceFiles(
      input.candidates.map((file) => resolver.sourceFile(file)),
      resolver,
    );
    if (result.diagnostics.length > 0) return { reason: 'problems found' };
    return { result: { ...result, pass: 'syntax' }, reason: '' };
  } catch (error) {
    if (error instanceof NotSyntactic) return { reason: error.message };
    throw error;
  }
}

function scanSourceFiles(candidates: readonly TS.SourceFile[], resolver: NameResolver): Omit<ScanResult, 'pass'> {
  const diagnostics: Diagnostic[] = [];
  const found: Found[] = [];

  for (const sourceFile of candidates) {
    for (const statement of sourceFile.statements) {
      if (!ts.isClassDeclaration(statement)) continue;
      for (const decorator of ts.getDecorators(statement) ?? []) {
        if (!isWebhookDecorator(decorator, resolver)) continue;
        const result = readDecorator(statement, decorator, resolver, diagnostics);
        if (result) found.push(result);
      }
    }
  }

  for (const { index, problem } of checkWebhookSet(found.map((f) => f.webhook))) {
    const item = found[index]!;
    diagnostics.push(diagnosticAt(item.locate(problem.path), problem.message));
  }
  return {
    webhooks: found.map(({ className, file, webhook }) => ({ className, file, webhook })),
    diagnostics,
    candidateFiles: candidates.length,
  };
}

function isWebhookDecorator(decorator: TS.Decorator, resolver: NameResolver): boolean {
  const call = decorator.expression;
  const callee = ts.isCallExpression(call) ? call.expression : call;
  return resolver.calleeDeclarations(callee).some((declaration) => ts.isFunctionDeclaration(declaration) && ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === MARKER_TAG));
}

// eslint-disable-next-line complexity, max-statements -- every way a decorator can fail to be static, reported where it fails; to split (follow-up)
function readDecorator(classNode: TS.ClassDeclaration, decorator: TS.Decorator, resolver: NameResolver, diagnostics: Diagnostic[]): Found | undefined {
  const call = decorator.expression;
  if (!ts.isCallExpression(call) || call.arguments.length !== 1) {
    diagnostics.push(diagnosticAt(decorator, '@Webhook must be called with exactly one options object: @Webhook({ path, mutating, rules })'));
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
  const inOtherFile = (node: TS.Node) => node.getSourceFile() !== decorator.getSourceFile();

  const { webhook, problems } = resolveWebhookOptions(evaluation.value);
  for (const problem of problems) {
    const node = locate(problem.path);
    const context = inOtherFile(node) ? ` (in @Webhook of ${classNode.name?.text ?? 'anonymous class'})` : '';
    diagnostics.push(diagnosticAt(node, `${problem.message}${context}`));
  }
  // Compiled even when other options are wrong, so that one run reports every problem.
  const conditions = (evaluation.value as { matchConditions?: unknown } | null)?.matchConditions;
  const celProblems = Array.isArray(conditions) && conditions.length > 0 ? checkMatchConditions(conditions) : [];
  for (const problem of celProblems) {
    const node = locate(['matchConditions', problem.index, 'expression']);
    const context = inOtherFile(node) ? ` (in @Webhook of ${classNode.name?.text ?? 'anonymous class'})` : '';
    diagnostics.push(diagnosticInString(node, problem.offset, `${problem.message}${context}`));
  }
  if (!webhook || celProblems.length > 0) return undefined;

  const className = classNode.name?.text;
  const exported = ts.getCombinedModifierFlags(classNode) & ts.ModifierFlags.Export;
  const isDefault = ts.getCombinedModifierFlags(classNode) & ts.ModifierFlags.Default;
  if (!className || !exported || isDefault) {
    diagnostics.push(diagnosticAt(classNode.name ?? classNode, `class ${className ?? '(anonymous)'} with @Webhook must be a named export (export class …) so the server can register it`));
    return undefined;
  }
  const shapeProblem = ownMembersShapeProblem(classNode, webhook);
  if (shapeProblem) {
    diagnostics.push(diagnosticAt(classNode.name, shapeProblem));
    return undefined;
  }
  return { className, file: decorator.getSourceFile().fileName, webhook, decorator, locate };
}

/** Checks own members only; inherited methods are left to the runtime's decoration-time check. */
function ownMembersShapeProblem(classNode: TS.ClassDeclaration, webhook: ResolvedWebhook): string | undefined {
  if (classNode.heritageClauses?.some((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)) return undefined;
  const methods = new Set(
    classNode.members
      .filter((member) => (ts.isMethodDeclaration(member) || ts.isPropertyDeclaration(member)) && ts.isIdentifier(member.name))
      .map((member) => (member.name as TS.Identifier).text),
  );
  return handlerShapeProblem(classNode.name!.text, webhook.mutating, (method) => methods.has(method));
}
