/** `@Webhook` classes read by the scan: each decorator's argument evaluated, checked by the runtime's rules and its CEL conditions compiled. */
import type { ts as TS } from 'ts-morph';
import { checkWebhookSet, handlerShapeProblem, type ProblemPath, type ResolvedWebhook, resolveWebhookOptions } from 'shaper-gen/internal/generator';
import { checkMatchConditions } from '../cel/match-conditions.js';
import { diagnosticAt, type Diagnostic } from '../diagnostics.js';
import { decoratorArgument, exportedClassName } from '../typescript/decorator-argument.js';
import { loadTypeScript } from '../typescript/compiler.js';
import type { NameResolver } from '../typescript/evaluate.js';

const ts = loadTypeScript();

export interface DecoratedWebhook {
  readonly className: string;
  readonly file: string;
  readonly webhook: ResolvedWebhook;
}

export interface FoundWebhook extends DecoratedWebhook {
  readonly decorator: TS.Decorator;
  readonly locate: (path: ProblemPath) => TS.Node;
}

export function readWebhookDecorator(classNode: TS.ClassDeclaration, decorator: TS.Decorator, resolver: NameResolver, diagnostics: Diagnostic[]): FoundWebhook | undefined {
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

/** Problems between webhooks (two at one path, two of one name), each at the decorator option it is about. */
export function webhookSetDiagnostics(found: readonly FoundWebhook[]): Diagnostic[] {
  return checkWebhookSet(found.map((f) => f.webhook)).map(({ index, problem }) => diagnosticAt(found[index]!.locate(problem.path), problem.message));
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
