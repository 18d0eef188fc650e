/**
 * What `@MutatingPolicy({...})` accepts and what it resolves to: a
 * MutatingAdmissionPolicy and its binding, named as
 * admissionregistration.k8s.io/v1 names them, with the match vocabulary every
 * policy shares (policy-types.ts).
 */
import type { PolicyOptions, ResolvedPolicy } from './policy-types.js';
import type { ReinvocationPolicy } from '../../webhook/options/types.js';

export const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'] as const;
/** The operations a mutating policy can match: the API server refuses DELETE (there is no object to change). */
export const MUTATING_POLICY_OPERATIONS = ['CREATE', 'UPDATE', 'CONNECT', '*'] as const;

export type PatchType = (typeof PATCH_TYPES)[number];

/** A CEL expression that builds the change. */
export interface MutationExpression {
  readonly expression: string;
}

/** One change to the object, applied in order, each seeing the object the ones before it produced. */
export interface Mutation {
  /** How `expression` changes the object: `ApplyConfiguration` (an `Object{...}` merged as server-side apply merges) or `JSONPatch` (a list of `JSONPatch{op, path, value}`). */
  readonly patchType: PatchType;
  /** With patchType ApplyConfiguration: CEL evaluating to `Object{spec: Object.spec{...}}`. */
  readonly applyConfiguration?: MutationExpression;
  /** With patchType JSONPatch: CEL evaluating to a list of `JSONPatch{op, path, from, value}`. */
  readonly jsonPatch?: MutationExpression;
}

/** What `@MutatingPolicy({...})` accepts. */
export interface MutatingPolicyOptions extends PolicyOptions {
  /** The changes, at least one; applied in order. */
  readonly mutations: readonly Mutation[];
  /** Never (default) or IfNeeded: whether the policy runs again when a later mutation changed the object. */
  readonly reinvocationPolicy?: ReinvocationPolicy;
}

/** A MutatingPolicy's options after validation, with every default applied. */
export interface ResolvedMutatingPolicy extends ResolvedPolicy, Required<Pick<MutatingPolicyOptions, 'mutations' | 'reinvocationPolicy'>> {}

type Assert<T extends true> = T;
type _EveryMutatingOptionResolves = Assert<[Exclude<keyof MutatingPolicyOptions, keyof ResolvedMutatingPolicy>] extends [never] ? true : false>;
