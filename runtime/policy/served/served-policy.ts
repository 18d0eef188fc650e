/**
 * A policy `serve` enforces as a webhook (config `policies.served`): the policy
 * and its bindings as the chart renders them, read once at start. The webhook
 * entry the chart renders instead of the policy carries the policy's own name,
 * so the API server words its refusals, warnings and audit annotations under
 * the same name.
 */
import { parseAllDocuments } from 'yaml';
import { isPlainObject } from '../../options/check.js';
import { RegistrationError } from '../../server/registry.js';

type JsonObject = Record<string, unknown>;

export interface ServedPolicy {
  readonly path: string;
  readonly name: string;
  readonly mutating: boolean;
  /** As admissionregistration.k8s.io/v1, the version the CEL engine reads (v1beta1's fields are the same). */
  readonly policy: JsonObject;
  readonly bindings: readonly JsonObject[];
  readonly paramKind?: { readonly apiVersion: string; readonly kind: string };
}

/** A served policy the configuration does not describe well enough to serve. */
export class ServedPolicyError extends RegistrationError {
  override name = 'ServedPolicyError';
}

const POLICY_KINDS: Readonly<Record<string, { mutating: boolean; binding: string }>> = {
  ValidatingAdmissionPolicy: { mutating: false, binding: 'ValidatingAdmissionPolicyBinding' },
  MutatingAdmissionPolicy: { mutating: true, binding: 'MutatingAdmissionPolicyBinding' },
};
const API_GROUP = 'admissionregistration.k8s.io';

/** `policies.served[index]` of the configuration. */
export function readServedPolicy(entry: { path?: string; objects?: string }, index: number): ServedPolicy {
  const where = `policies.served[${index}]`;
  if (!entry.path) throw new ServedPolicyError(`${where}: path is missing; the chart names the path its webhook entry calls`);
  const documents = parseAllDocuments(entry.objects ?? '');
  const list = Array.isArray(documents) ? documents : [documents];
  const objects: JsonObject[] = [];
  for (const document of list) {
    if (document.errors.length > 0) throw new ServedPolicyError(`${where}.objects: not YAML: ${document.errors[0]!.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (!isPlainObject(value)) throw new ServedPolicyError(`${where}.objects: every document must be an object`);
    objects.push(value);
  }
  const policies = objects.filter((object) => typeof object.kind === 'string' && object.kind in POLICY_KINDS);
  if (policies.length !== 1) throw new ServedPolicyError(`${where}.objects: must hold one ValidatingAdmissionPolicy or MutatingAdmissionPolicy, found ${policies.length}`);
  const policy = asV1(policies[0]!, where);
  const kind = POLICY_KINDS[policy.kind as string]!;
  const name = nameOf(policy);
  const bindings = objects.filter((object) => object !== policies[0]).map((object) => asV1(object, where));
  for (const binding of bindings) {
    if (binding.kind !== kind.binding) throw new ServedPolicyError(`${where}.objects: ${String(binding.kind)} ${nameOf(binding)} is not a ${kind.binding}`);
    const policyName = isPlainObject(binding.spec) ? binding.spec.policyName : undefined;
    if (policyName !== name) throw new ServedPolicyError(`${where}.objects: ${kind.binding} ${nameOf(binding)} binds ${String(policyName)}, not ${name}`);
  }
  if (bindings.length === 0) throw new ServedPolicyError(`${where}.objects: no ${kind.binding} for ${name}: a policy without a binding does nothing`);
  const spec = isPlainObject(policy.spec) ? policy.spec : {};
  const paramKind = isPlainObject(spec.paramKind) ? { apiVersion: String(spec.paramKind.apiVersion), kind: String(spec.paramKind.kind) } : undefined;
  return { path: entry.path, name, mutating: kind.mutating, policy, bindings, ...(paramKind && { paramKind }) };
}

function asV1(object: JsonObject, where: string): JsonObject {
  const apiVersion = String(object.apiVersion);
  if (apiVersion !== `${API_GROUP}/v1` && apiVersion !== `${API_GROUP}/v1beta1`) {
    throw new ServedPolicyError(`${where}.objects: ${String(object.kind)} ${nameOf(object)} has apiVersion ${apiVersion}; expected ${API_GROUP}/v1 or v1beta1`);
  }
  return { ...object, apiVersion: `${API_GROUP}/v1` };
}

function nameOf(object: JsonObject): string {
  return isPlainObject(object.metadata) && typeof object.metadata.name === 'string' ? object.metadata.name : '(no name)';
}
