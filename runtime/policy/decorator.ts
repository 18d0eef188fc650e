/**
 * `@ValidatingPolicy({...})` and `@MutatingPolicy({...})`: declare a
 * ValidatingAdmissionPolicy or a MutatingAdmissionPolicy (CEL the API server
 * evaluates itself) on a class, beside the webhook classes. The class is the
 * handle: `shaper-gen manifests` reads the options statically and writes the
 * policy and its binding into the chart; `shaper-gen/testing` evaluates it
 * locally. `serve` ignores it: there is nothing to serve.
 */
import type { MutatingPolicyOptions, ResolvedMutatingPolicy } from './options/mutating-policy-types.js';
import { resolveMutatingPolicyOptions, resolveValidatingPolicyOptions } from './options/policy-resolve.js';
import type { ResolvedValidatingPolicy, ValidatingPolicyOptions } from './options/policy-types.js';
import { ConfigError, type Problem } from '../problems.js';

const VALIDATING_METADATA = Symbol.for('shaper-gen.validating-policy');
const MUTATING_METADATA = Symbol.for('shaper-gen.mutating-policy');

/** An unknown key (`validation: [...]`) is a type error in the editor, as for `@Webhook`. */
type KnownOptionsOnly<O, Known> = O & Readonly<Record<Exclude<keyof O, keyof Known>, never>>;
type ClassDecorator = <C extends abstract new (...args: never[]) => unknown>(target: C, context?: ClassDecoratorContext<C>) => void;

function policyDecorator(decorator: string, metadata: symbol, resolve: (options: unknown, className: string) => { policy?: object; problems: Problem[] }, options: unknown): ClassDecorator {
  return (target, context) => {
    const kind = (context as { kind?: unknown } | undefined)?.kind;
    if (context !== undefined && kind !== 'class') throw new TypeError(`${decorator} decorates classes, not a ${String(kind)}`);
    const { policy, problems } = resolve(options, target.name);
    if (!policy) throw new ConfigError(problems, `${decorator} options of ${target.name}`, { root: 'options' });
    Object.defineProperty(target, metadata, { value: policy, enumerable: false });
  };
}

function metadataOf(target: unknown, metadata: symbol): unknown {
  if (typeof target !== 'function') return undefined;
  return Object.prototype.hasOwnProperty.call(target, metadata) ? (target as unknown as Record<symbol, unknown>)[metadata] : undefined;
}

/**
 * Marks a class as a ValidatingAdmissionPolicy. The class may have an empty body.
 *
 * @shaperGenMarker validatingPolicy
 */
export function ValidatingPolicy<const O extends ValidatingPolicyOptions>(options: KnownOptionsOnly<O, ValidatingPolicyOptions>): ClassDecorator {
  return policyDecorator('@ValidatingPolicy', VALIDATING_METADATA, resolveValidatingPolicyOptions, options);
}

/**
 * Marks a class as a MutatingAdmissionPolicy. The class may have an empty body.
 *
 * @shaperGenMarker mutatingPolicy
 */
export function MutatingPolicy<const O extends MutatingPolicyOptions>(options: KnownOptionsOnly<O, MutatingPolicyOptions>): ClassDecorator {
  return policyDecorator('@MutatingPolicy', MUTATING_METADATA, resolveMutatingPolicyOptions, options);
}

/** The resolved options of a class decorated with `@ValidatingPolicy`, or undefined. */
export function validatingPolicyOf(target: unknown): ResolvedValidatingPolicy | undefined {
  return metadataOf(target, VALIDATING_METADATA) as ResolvedValidatingPolicy | undefined;
}

/** The resolved options of a class decorated with `@MutatingPolicy`, or undefined. */
export function mutatingPolicyOf(target: unknown): ResolvedMutatingPolicy | undefined {
  return metadataOf(target, MUTATING_METADATA) as ResolvedMutatingPolicy | undefined;
}
