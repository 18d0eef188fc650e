/**
 * Finds the classes decorated with shaper-gen's `@Webhook` (and
 * `@ValidatingPolicy`, `@Conversion`) and turns each
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
import { checkWebhookSet, handlerShapeProblem, type ProblemPath, type ResolvedWebhook, resolveWebhookOptions } from 'shaper-gen/internal/generator';
import { checkMatchConditions } from './cel/match-conditions.js';
import { conversionSetDiagnostics, readConversionDecorator, type DecoratedConversion, type FoundConversion } from './conversion/scan-conversion.js';
import type { Crd } from './crd/types.js';
import { decoratorArgument, exportedClassName } from './decorator-argument.js';
import { diagnosticAt, type Diagnostic } from './diagnostics.js';
import { checkerResolver, type NameResolver } from './evaluate.js';
import { isPolicyMarker, policySetDiagnostics, readPolicyDecorator, type DecoratedPolicy, type FoundPolicy, type PolicyCheckContext } from './policy/scan-policy.js';
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
  readonly policies: readonly DecoratedPolicy[];
  readonly conversions: readonly DecoratedConversion[];
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
  /** What policy expressions are type-checked against; without it, `object` is dyn. */
  readonly policies?: PolicyCheckContext;
  /** The CRDs generated from the project's types, which `@Conversion` classes are checked against. */
  readonly customResources?: readonly Crd[];
  /** Files this run will write that sources import (types from CRDs): scanned as they will be. */
  readonly pending?: ReadonlyMap<string, string>;
}

export function scanWebhooks(tsconfigPath: string, files: readonly string[], options: ScanOptions = {}): ScanResult {
  const input = prepareScan(tsconfigPath, files, options.pending);
  const syntaxOnly = options.checkerOnly ? { reason: 'checkerOnly' } : scanWithoutChecker(input, options);
  if (syntaxOnly.result) return syntaxOnly.result;
  const { checker, candidates } = buildScanProgram(input);
  return { ...scanSourceFiles(candidates, checkerResolver(checker), options), pass: 'checker', checkerReason: syntaxOnly.reason };
}

/** The syntax-only pass; no result where the checker must decide or word a diagnostic. */
function scanWithoutChecker(input: ScanInput, options: ScanOptions): { result?: ScanResult; reason: string } {
  if (input.augmentations) return { reason: 'a source file declares a module augmentation or globals' };
  try {
    const resolver = new SyntaxResolver(input);
    const result = scanSourceFiles(
      input.candidates.map((file) => resolver.sourceFile(file)),
      resolver,
      options,
    );
    if (result.diagnostics.length > 0) return { reason: 'problems found' };
    return { result: { ...result, pass: 'syntax' }, reason: '' };
  } catch (error) {
    if (error instanceof NotSyntactic) return { reason: error.message };
    throw error;
  }
}

function scanSourceFiles(candidates: readonly TS.SourceFile[], resolver: NameResolver, options: ScanOptions): Omit<ScanResult, 'pass'> {
  const diagnostics: Diagnostic[] = [];
  const found: Found[] = [];
  const policies: FoundPolicy[] = [];
  const conversions: FoundConversion[] = [];

  for (const sourceFile of candidates) {
    for (const statement of sourceFile.statements) {
      if (!ts.isClassDeclaration(statement)) continue;
      for (const decorator of ts.getDecorators(statement) ?? []) {
        const marker = markerOf(decorator, resolver);
        const webhook = marker === 'webhook' ? readDecorator(statement, decorator, resolver, diagnostics) : undefined;
        const policy = isPolicyMarker(marker) ? readPolicyDecorator({ marker: marker!, classNode: statement, decorator }, resolver, diagnostics, options.policies) : undefined;
        const conversion = marker === 'conversion' ? readConversionDecorator(statement, decorator, resolver, diagnostics, options.customResources ?? []) : undefined;
        if (webhook) found.push(webhook);
        if (policy) policies.push(policy);
        if (conversion) conversions.push(conversion);
      }
    }
  }

  for (const { index, problem } of checkWebhookSet(found.map((f) => f.webhook))) {
    const item = found[index]!;
    diagnostics.push(diagnosticAt(item.locate(problem.path), problem.message));
  }
  diagnostics.push(...policySetDiagnostics(policies), ...conversionSetDiagnostics(conversions));
  return {
    webhooks: found.map(({ className, file, webhook }) => ({ className, file, webhook })),
    policies: policies.map(({ className, file, policy }) => ({ className, file, policy })),
    conversions: conversions.map(({ className, file, conversion }) => ({ className, file, conversion })),
    diagnostics,
    candidateFiles: candidates.length,
  };
}

/** Which of shaper-gen's decorators this is, by the `@shaperGenMarker <kind>` tag on the function it calls. */
function markerOf(decorator: TS.Decorator, resolver: NameResolver): string | undefined {
  const call = decorator.expression;
  const callee = ts.isCallExpression(call) ? call.expression : call;
  for (const declaration of resolver.calleeDeclarations(callee)) {
    if (!ts.isFunctionDeclaration(declaration)) continue;
    const tag = ts.getJSDocTags(declaration).find((t) => t.tagName.text === MARKER_TAG);
    if (tag) return ts.getTextOfJSDocComment(tag.comment)?.trim() ?? 'webhook';
  }
  return undefined;
}

function readDecorator(classNode: TS.ClassDeclaration, decorator: TS.Decorator, resolver: NameResolver, diagnostics: Diagnostic[]): Found | undefined {
  const argument = decoratorArgument(decorator, '@Webhook must be called with exactly one options object: @Webhook({ path, mutating, rules })', resolver, diagnostics);
  if (!argument) return undefined;
  const { value, locate, report } = argument;
  const { webhook, problems } = resolveWebhookOptions(value);
  for (const problem of problems) report(classNode, '@Webhook', problem.path, problem.message);
  // Compiled even when other options are wrong, so that one run reports every problem.
  const conditions = (value as { matchConditions?: unknown } | null)?.matchConditions;
  const celProblems = Array.isArray(conditions) && conditions.length > 0 ? checkMatchConditions(conditions) : [];
  for (const problem of celProblems) report(classNode, '@Webhook', ['matchConditions', problem.index, 'expression'], problem.message, problem.offset);
  if (!webhook || celProblems.length > 0) return undefined;
  const className = exportedClassName(classNode, '@Webhook', 'so the server can register it', diagnostics);
  if (!className) return undefined;
  const shapeProblem = ownMembersShapeProblem(classNode, webhook);
  if (shapeProblem) {
    diagnostics.push(diagnosticAt(classNode.name!, shapeProblem));
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
