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
import { NotEvaluableLocally } from '../../cel/runtime-library.js';
import { ApplyConfigurationError, applyConfiguration, METADATA_ONLY_SCHEMA, objectSchema, type MergeSchema } from './apply-configuration.js';
import { mismatch } from './match.js';
import { defaultNamespaceObject, expressionRunner, matchConditions, type Runner } from './runner.js';
import type { EvaluationInput } from './request.js';
import type { PolicyStatus } from './validating.js';

/** Built-in kinds whose topology the merge knows beyond metadata, by `group/version/Kind`. */
const BUILTIN_SCHEMAS: Readonly<Record<string, MergeSchema>> = {
  '/v1/ConfigMap': objectSchema({
    type: 'object',
    properties: { data: { type: 'object', additionalProperties: { type: 'string' } }, binaryData: { type: 'object', additionalProperties: { type: 'string' } }, immutable: { type: 'boolean' } },
  }),
};

function builtinKind(kind: { readonly group: string; readonly version: string; readonly kind: string }): string {
  return `${kind.group}/${kind.version}/${kind.kind}`;
}

export interface MutationInput extends EvaluationInput {
  /** The resource's structural schema (a CRD's openAPIV3Schema): what an ApplyConfiguration merges by. Without it only metadata can be merged. */
  readonly schema?: MergeSchema;
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
  const runner = expressionRunner(policy, input, namespaceObject);
  const binding = input.bindingName ?? policy.name;
  const refused = (messages: readonly string[]): MutationResult => {
    const texts = messages.map((message) => `policy '${policy.name}' with binding '${binding}' denied request: ${message}`);
    return { matched: true, allowed: false, status: { code: 403, reason: 'Invalid', message: texts[0]!, causes: texts.map((message) => ({ message })) }, object: original };
  };
  const conditions = matchConditions(policy, runner);
  if ('unmatched' in conditions) return notMatched(conditions.unmatched);
  if (conditions.error !== undefined) return policy.failurePolicy === 'Fail' ? refused([conditions.error]) : notMatched('a matchCondition failed and failurePolicy is Ignore');
  const schema = input.schema ? objectSchema(input.schema) : (BUILTIN_SCHEMAS[builtinKind(request.kind)] ?? METADATA_ONLY_SCHEMA);
  // A mutation that fails leaves the object as it was and the next one runs (dispatcher.go); under Fail the request is then refused, first error first.
  const errors: string[] = [];
  let object = original;
  for (const mutation of policy.mutations) {
    if (object === null || object === undefined) continue;
    const result = mutated(policy, runner, mutation, object, schema);
    if ('error' in result) errors.push(result.error);
    else object = result.object;
  }
  if (errors.length > 0 && policy.failurePolicy === 'Fail') return refused(errors);
  return { matched: true, allowed: true, object };
}

/** One mutation on the object the ones before it produced (patcher.Patch with the budget each mutation gets). */
function mutated(
  policy: ResolvedMutatingPolicy,
  runner: Runner,
  mutation: ResolvedMutatingPolicy['mutations'][number],
  object: unknown,
  schema: MergeSchema,
): { readonly object: unknown } | { readonly error: string } {
  const kind = mutation.patchType === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration';
  const result = runner.mutate(kind, mutation[PATCH_FIELD[mutation.patchType]]!.expression, object, RUNTIME_BUDGET);
  if ('error' in result || kind === 'jsonPatch') return result;
  const live = object as { apiVersion?: string; kind?: string };
  const patch = { ...(result.object as Record<string, unknown>), apiVersion: live.apiVersion, kind: live.kind };
  const beyondMetadata = Object.keys(patch).filter((key) => !Object.hasOwn(schema.properties ?? {}, key));
  if (schema === METADATA_ONLY_SCHEMA && beyondMetadata.length > 0)
    throw new NotEvaluableLocally(
      `policy ${policy.name} sets ${beyondMetadata.join(', ')}, which is merged by the resource's schema: pass it (the CRD's openAPIV3Schema) as \`schema\` to evaluate it locally`,
    );
  try {
    return { object: applyConfiguration(object, patch, schema) };
  } catch (error) {
    if (error instanceof ApplyConfigurationError) return { error: `error applying patch: ${error.message}` };
    throw error;
  }
}
