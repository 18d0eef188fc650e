/**
 * A MutatingAdmissionPolicy and its binding evaluated locally, returning what
 * the API server would: the object after every mutation, or the refusal an
 * error gets under failurePolicy Fail
 * (k8s.io/apiserver pkg/admission/plugin/policy/mutating: dispatcher.go,
 * patch/json_patch.go, patch/smd.go; generic/policy_dispatcher.go for the
 * status). Mutations run in order, each on the object the ones before it
 * produced; variables are computed once per policy, on first use. One policy
 * on its own: the reinvocation of policies and webhooks after one another is
 * the API server's.
 */
import { PATCH_FIELD, type ResolvedMutatingPolicy } from 'shaper-gen/internal/generator';
import { JSON_PATCH_TYPE, MESSAGE_TYPE, OBJECT_TYPE } from '../../cel/mutation-library.js';
import { NotEvaluableLocally } from '../../cel/runtime-library.js';
import { ApplyConfigurationError, applyConfiguration, METADATA_ONLY_SCHEMA, objectSchema, type MergeSchema } from './apply-configuration.js';
import { applyJsonPatch, JsonPatchError, type PatchOperation } from './json-patch.js';
import { mismatch } from './match.js';
import { defaultNamespaceObject, ExpressionError, expressionRunner, matchConditions } from './js-runner.js';
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

/** A mutation failed; the message is the API server's error, before the policy and binding are named. */
class MutationError extends Error {}

/** A constructed message's type names match its field path from `Object` (dynamic.ObjectVal CheckTypeNamesMatchFieldPathNames). */
function typeNameErrors(value: unknown, path: readonly string[]): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => typeNameErrors(item, path));
  if (value instanceof Map) return [...value.values()].flatMap((item) => typeNameErrors(item, path));
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string | symbol, unknown>;
  const name = record[MESSAGE_TYPE] as string | undefined;
  const own =
    name !== undefined && name !== JSON_PATCH_TYPE && name !== path.join('.')
      ? [`unexpected type name "${name}", expected "${path.join('.')}", which matches field name path from root Object type`]
      : [];
  return [...own, ...Object.entries(record).flatMap(([key, item]) => typeNameErrors(item, name === undefined ? path : [...path, key]))];
}

/** A CEL value as the JSON the API server marshals it to. */
function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v)]));
  if (typeof value === 'object' && (value.constructor === Object || (value as Record<symbol, unknown>)[MESSAGE_TYPE] !== undefined)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  }
  throw new NotEvaluableLocally(`a mutation produced a ${(value as object).constructor.name} value: how the API server writes it into the object is not reproduced locally`);
}

function jsonPatchOperations(result: unknown): PatchOperation[] {
  if (!Array.isArray(result)) throw new MutationError('type mismatch: JSONPatchType.expression should evaluate to array');
  return result.map((item: Record<string | symbol, unknown>) => {
    const valueType = typeof item.value === 'object' && item.value !== null ? (item.value as Record<symbol, unknown>)[MESSAGE_TYPE] : undefined;
    const errors = typeof valueType === 'string' ? typeNameErrors(item.value, [valueType]) : [];
    if (errors.length > 0) throw new MutationError(`type mismatch: ${errors.join('\n')}`);
    return {
      op: typeof item.op === 'string' ? item.op : '',
      path: typeof item.path === 'string' ? item.path : '',
      ...(typeof item.from === 'string' && item.from !== '' && { from: item.from }),
      ...(item.value !== undefined && { value: toJson(item.value) }),
    };
  });
}

function applied(policy: ResolvedMutatingPolicy, object: unknown, mutation: ResolvedMutatingPolicy['mutations'][number], result: unknown, schema: MergeSchema): unknown {
  if (mutation.patchType === 'JSONPatch') {
    try {
      return applyJsonPatch(object, jsonPatchOperations(result));
    } catch (error) {
      if (error instanceof JsonPatchError) throw new MutationError(`JSON Patch: ${error.message}`);
      throw error;
    }
  }
  const errors = typeNameErrors(result, [OBJECT_TYPE]);
  if (errors.length > 0) throw new MutationError(`type mismatch: ${errors.join('\n')}`);
  const live = object as { apiVersion?: string; kind?: string };
  const patch = { ...(toJson(result) as Record<string, unknown>), apiVersion: live.apiVersion, kind: live.kind };
  const beyondMetadata = Object.keys(patch).filter((key) => !Object.hasOwn(schema.properties ?? {}, key));
  if (schema === METADATA_ONLY_SCHEMA && beyondMetadata.length > 0)
    throw new NotEvaluableLocally(
      `policy ${policy.name} sets ${beyondMetadata.join(', ')}, which is merged by the resource's schema: pass it (the CRD's openAPIV3Schema) as \`schema\` to evaluate it locally`,
    );
  try {
    return applyConfiguration(object, patch, schema);
  } catch (error) {
    if (error instanceof ApplyConfigurationError) throw new MutationError(`error applying patch: ${error.message}`);
    throw error;
  }
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
  const conditions = matchConditions(policy, runner.run);
  if ('unmatched' in conditions) return notMatched(conditions.unmatched);
  if (conditions.error !== undefined) return policy.failurePolicy === 'Fail' ? refused([conditions.error]) : notMatched('a matchCondition failed and failurePolicy is Ignore');
  const schema = input.schema ? objectSchema(input.schema) : (BUILTIN_SCHEMAS[builtinKind(request.kind)] ?? METADATA_ONLY_SCHEMA);
  // A mutation that fails leaves the object as it was and the next one runs (dispatcher.go); under Fail the request is then refused, first error first.
  const errors: string[] = [];
  let object = original;
  for (const mutation of policy.mutations) {
    if (object === null || object === undefined) continue;
    runner.setObject(object);
    try {
      const result = runner.runPatch(mutation[PATCH_FIELD[mutation.patchType]]!.expression);
      object = applied(policy, object, mutation, result, schema);
    } catch (error) {
      if (!(error instanceof ExpressionError || error instanceof MutationError)) throw error;
      errors.push(error.message);
    }
  }
  if (errors.length > 0 && policy.failurePolicy === 'Fail') return refused(errors);
  return { matched: true, allowed: true, object };
}
