/**
 * A MutatingAdmissionPolicy and its binding evaluated locally, returning what
 * the API server would: the object after every mutation, or the refusal an
 * error gets under failurePolicy Fail
 * (k8s.io/apiserver pkg/admission/plugin/policy/mutating: dispatcher.go,
 * patch/json_patch.go, patch/smd.go; generic/policy_dispatcher.go for the
 * status). The expressions and JSON patches run in the API server's own
 * evaluator and patcher (the CEL engine); mutations run in order, each on the
 * object the ones before it produced. One policy
 * on its own: the reinvocation of policies and webhooks after one another is
 * the API server's.
 */
import { PATCH_FIELD, type ResolvedMutatingPolicy } from 'shaper-gen/internal/generator';
import { RUNTIME_BUDGET } from '../../cel/engine/index.js';
import { mismatch } from './match.js';
import { builtinServes, crdFor, ensureBuiltinSchemas } from './merge-schemas.js';
import { defaultNamespaceObject, expressionRunner, matchConditions, type Runner } from './runner.js';
import type { EvaluationInput } from './request.js';
import type { PolicyStatus } from './validating.js';

/** A custom resource's ApplyConfiguration met without its schema: the test has to pass it. */
export class SchemaNotDeclared extends Error {
  override name = 'SchemaNotDeclared';
}

export interface MutationInput extends EvaluationInput {
  /** A custom resource's structural schema (its CRD's openAPIV3Schema), which an ApplyConfiguration on it is merged by; built-in kinds' are shipped. */
  readonly schema?: unknown;
}

export interface MutationResult {
  /** False when the rules, selectors or matchConditions leave the request out; `why` says which. */
  readonly matched: boolean;
  readonly why?: string;
  readonly allowed: boolean;
  readonly status?: PolicyStatus;
  /** The object after the policy: mutated, or as it came when nothing applied. */
  readonly object: unknown;
}

export function evaluateMutatingPolicy(policy: ResolvedMutatingPolicy, input: MutationInput): MutationResult {
  const { request } = input;
  const original = request.object;
  const namespaceObject = input.namespaceObject === undefined ? defaultNamespaceObject(request.namespace) : input.namespaceObject;
  const notMatched = (why: string): MutationResult => ({ matched: false, why, allowed: true, object: original });
  const why = mismatch(policy, request, namespaceObject);
  if (why) return notMatched(why);
  const runner = expressionRunner(policy, { ...input, crds: mergeCrds(policy, input) }, namespaceObject);
  const binding = input.bindingName ?? policy.name;
  const refused = (messages: readonly string[]): MutationResult => {
    const texts = messages.map((message) => `policy '${policy.name}' with binding '${binding}' denied request: ${message}`);
    return { matched: true, allowed: false, status: { code: 403, reason: 'Invalid', message: texts[0]!, causes: texts.map((message) => ({ message })) }, object: original };
  };
  const conditions = matchConditions(policy, runner);
  if ('unmatched' in conditions) return notMatched(conditions.unmatched);
  if (conditions.error !== undefined) return policy.failurePolicy === 'Fail' ? refused([conditions.error]) : notMatched('a matchCondition failed and failurePolicy is Ignore');
  // A mutation that fails leaves the object as it was and the next one runs (dispatcher.go); under Fail the request is then refused, first error first.
  const errors: string[] = [];
  let object = original;
  for (const mutation of policy.mutations) {
    if (object === null || object === undefined) continue;
    const result = mutated(runner, mutation, object);
    if ('error' in result) errors.push(result.error);
    else object = result.object;
  }
  if (errors.length > 0 && policy.failurePolicy === 'Fail') return refused(errors);
  return { matched: true, allowed: true, object };
}

/**
 * The CRD an ApplyConfiguration on the request's custom resource is merged by (from the test's `schema`);
 * built-in kinds are merged by the shipped schemas, which the engine is given once.
 */
function mergeCrds(policy: ResolvedMutatingPolicy, { request, schema }: MutationInput): object[] {
  if (!policy.mutations.some((mutation) => mutation.patchType === 'ApplyConfiguration')) return [];
  ensureBuiltinSchemas();
  const { kind, resource } = request;
  if (schema !== undefined) return [crdFor(kind, resource.resource, request.namespace !== undefined && request.namespace !== '', schema)];
  if (builtinServes(kind.group, kind.version, kind.kind)) return [];
  throw new SchemaNotDeclared(
    `policy ${policy.name} merges an ApplyConfiguration into ${kind.kind}.${kind.group}/${kind.version}, a custom resource the project does not declare, by its schema: pass the CRD's openAPIV3Schema to runPolicy as \`schema\``,
  );
}

/** One mutation on the object the ones before it produced, by the API server's patchers (JSON Patch, or ApplyConfiguration merged by the kind's schema). */
function mutated(runner: Runner, mutation: ResolvedMutatingPolicy['mutations'][number], object: unknown): { readonly object: unknown } | { readonly error: string } {
  const kind = mutation.patchType === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration';
  return runner.mutate(kind, mutation[PATCH_FIELD[mutation.patchType]]!.expression, object, RUNTIME_BUDGET);
}
