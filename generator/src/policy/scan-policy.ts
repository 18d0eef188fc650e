/**
 * Reads `@ValidatingPolicy({...})` and `@MutatingPolicy({...})` from a class as the scan reads `@Webhook`:
 * the argument evaluated statically, the options checked by the runtime's
 * rules, every CEL expression compiled (expressions.ts), each problem at
 * `file:line:col`.
 */
import type { ts as TS } from 'ts-morph';
import { resolveMutatingPolicyOptions, resolveValidatingPolicyOptions, type Problem } from 'shaper-gen/internal/generator';
import { decoratorArgument } from '../typescript/decorator-argument.js';
import { diagnosticAt, type Diagnostic } from '../diagnostics.js';
import type { NameResolver } from '../typescript/evaluate.js';
import { policyCostWarnings } from './cost-warnings.js';
import { checkPolicyExpressions, type AnyResolvedPolicy, type TypedResource } from './expressions.js';

export interface DecoratedPolicy {
  readonly className: string;
  readonly file: string;
  readonly policy: AnyResolvedPolicy;
  /** Where its CEL can exceed the API server's runtime cost limits (cost-warnings.ts). */
  readonly warnings: readonly Diagnostic[];
}

export interface FoundPolicy extends DecoratedPolicy {
  readonly classNode: TS.ClassDeclaration;
}

/** Where policy expressions get the schema `object` is typed from. */
export interface PolicyCheckContext {
  /** The schema of one resource at one version; undefined when unknown (then `object` is dyn). */
  resourceSchema(group: string, version: string, resource: string): TypedResource | undefined;
}

/** The policy decorators by their `@shaperGenMarker` tag. */
const POLICY_DECORATORS: Readonly<
  Record<string, { readonly name: string; readonly shape: string; readonly resolve: (raw: unknown, className: string) => { policy?: AnyResolvedPolicy; problems: Problem[] } }>
> = {
  validatingPolicy: { name: '@ValidatingPolicy', shape: '{ rules, validations }', resolve: resolveValidatingPolicyOptions },
  mutatingPolicy: { name: '@MutatingPolicy', shape: '{ rules, mutations }', resolve: resolveMutatingPolicyOptions },
};

export function isPolicyMarker(marker: string | undefined): boolean {
  return marker !== undefined && Object.hasOwn(POLICY_DECORATORS, marker);
}

export function readPolicyDecorator(
  { marker, classNode, decorator }: { readonly marker: string; readonly classNode: TS.ClassDeclaration; readonly decorator: TS.Decorator },
  resolver: NameResolver,
  diagnostics: Diagnostic[],
  context: PolicyCheckContext | undefined,
  /** Checks of the output being written (static admission's refusals), reported like the option rules'. */
  outputChecks?: (policy: AnyResolvedPolicy) => readonly Problem[],
): FoundPolicy | undefined {
  const { name: DECORATOR, shape, resolve } = POLICY_DECORATORS[marker]!;
  const className = classNode.name?.text;
  if (!className) {
    diagnostics.push(diagnosticAt(classNode, `a class with ${DECORATOR} needs a name: the policy's default name and the tests' handle come from it`));
    return undefined;
  }
  const argument = decoratorArgument(decorator, `${DECORATOR} must be called with exactly one options object: ${DECORATOR}(${shape})`, resolver, diagnostics);
  if (!argument) return undefined;
  const { policy, problems } = resolve(argument.value, className);
  for (const problem of problems) argument.report(classNode, DECORATOR, problem.path, problem.message);
  if (!policy) return undefined;
  const outputProblems = outputChecks?.(policy) ?? [];
  for (const problem of outputProblems) argument.report(classNode, DECORATOR, problem.path, problem.message);
  if (outputProblems.length > 0) return undefined;
  const typed = context && typedResourceOf(policy, context);
  const expressionProblems = checkPolicyExpressions(policy, typed);
  for (const problem of expressionProblems) argument.report(classNode, DECORATOR, problem.path, problem.message, problem.offset);
  if (expressionProblems.length > 0) return undefined;
  const warnings = policyCostWarnings(policy, typed).map((warning) => diagnosticAt(argument.locate(warning.path), warning.message));
  return { className, file: decorator.getSourceFile().fileName, policy, classNode, warnings };
}

/**
 * The one resource every rule of the policy names (no wildcards, no
 * subresources), whose schema types `object`; otherwise `object` stays dyn,
 * as it is for the API server.
 */
export function typedResourceOf(policy: AnyResolvedPolicy, context: PolicyCheckContext): TypedResource | undefined {
  const targets = new Set<string>();
  for (const rule of policy.rules) {
    if (rule.groups.length !== 1 || rule.versions.length !== 1 || rule.resources.length !== 1) return undefined;
    const [group, version, resource] = [rule.groups[0]!, rule.versions[0]!, rule.resources[0]!];
    if ([group, version, resource].some((part) => part.includes('*')) || resource.includes('/')) return undefined;
    targets.add(`${group}\0${version}\0${resource}`);
  }
  if (targets.size !== 1) return undefined;
  const [group, version, resource] = [...targets][0]!.split('\0') as [string, string, string];
  return context.resourceSchema(group, version, resource);
}

/** Policy names are unique within a kind (each names a policy and its binding). */
export function policySetDiagnostics(policies: readonly FoundPolicy[]): Diagnostic[] {
  const seen = new Map<string, FoundPolicy>();
  const diagnostics: Diagnostic[] = [];
  for (const found of policies) {
    const key = `${'mutations' in found.policy ? 'mutating' : 'validating'}/${found.policy.name}`;
    const first = seen.get(key);
    if (first) diagnostics.push(diagnosticAt(found.classNode.name ?? found.classNode, `duplicate policy name "${found.policy.name}" (also ${first.className}): set \`name\` on one of them`));
    else seen.set(key, found);
  }
  return diagnostics;
}
