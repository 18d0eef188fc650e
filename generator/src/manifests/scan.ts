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
import { conversionSetDiagnostics, readConversionDecorator, type DecoratedConversion, type FoundConversion } from '../conversion/scan-conversion.js';
import type { Crd } from '../crd/types.js';
import type { Diagnostic } from '../diagnostics.js';
import { checkerResolver, type NameResolver } from '../typescript/evaluate.js';
import { isPolicyMarker, policySetDiagnostics, readPolicyDecorator, type DecoratedPolicy, type FoundPolicy, type PolicyCheckContext } from '../policy/scan-policy.js';
import { staticPolicyProblems } from '../static/refusals.js';
import { buildScanProgram, prepareScan, type ScanInput } from '../typescript/program.js';
import { NotSyntactic, SyntaxResolver } from '../typescript/syntax-resolver.js';
import { loadTypeScript } from '../typescript/compiler.js';
import { readWebhookDecorator, webhookSetDiagnostics, type DecoratedWebhook, type FoundWebhook } from '../webhook/scan-webhook.js';

const ts = loadTypeScript();

/** The JSDoc tag on the `Webhook` function that marks it as shaper-gen's decorator. */
const MARKER_TAG = 'shaperGenMarker';

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

export interface ScanOptions {
  /** Skip the syntax-only pass (tests compare the two). */
  readonly checkerOnly?: boolean;
  /** What policy expressions are type-checked against; without it, `object` is dyn. */
  readonly policies?: PolicyCheckContext;
  /** The CRDs generated from the project's types, which `@Conversion` classes are checked against. */
  readonly customResources?: readonly Crd[];
  /** Files this run will write that sources import (types from CRDs): scanned as they will be. */
  readonly pending?: ReadonlyMap<string, string>;
  /** Refuse what static admission cannot hold (`manifests --static`). */
  readonly staticAdmission?: boolean;
}

export function scanDecorators(tsconfigPath: string, files: readonly string[], options: ScanOptions = {}): ScanResult {
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
  const found: FoundWebhook[] = [];
  const policies: FoundPolicy[] = [];
  const conversions: FoundConversion[] = [];

  for (const sourceFile of candidates) {
    for (const statement of sourceFile.statements) {
      if (!ts.isClassDeclaration(statement)) continue;
      for (const decorator of ts.getDecorators(statement) ?? []) {
        const marker = markerOf(decorator, resolver);
        const webhook = marker === 'webhook' ? readWebhookDecorator(statement, decorator, resolver, diagnostics) : undefined;
        const policy = isPolicyMarker(marker)
          ? readPolicyDecorator({ marker: marker!, classNode: statement, decorator }, resolver, diagnostics, options.policies, options.staticAdmission ? staticPolicyProblems : undefined)
          : undefined;
        const conversion = marker === 'conversion' ? readConversionDecorator(statement, decorator, resolver, diagnostics, options.customResources ?? []) : undefined;
        if (webhook) found.push(webhook);
        if (policy) policies.push(policy);
        if (conversion) conversions.push(conversion);
      }
    }
  }

  diagnostics.push(...webhookSetDiagnostics(found), ...policySetDiagnostics(policies), ...conversionSetDiagnostics(conversions));
  return {
    webhooks: found.map(({ className, file, webhook }) => ({ className, file, webhook })),
    policies: policies.map(({ className, file, policy, warnings }) => ({ className, file, policy, warnings })),
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
