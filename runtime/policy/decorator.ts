/**
 * `@ValidatingPolicy({...})`: declares a ValidatingAdmissionPolicy (CEL the
 * API server evaluates itself) on a class, beside the webhook classes. The
 * class is the handle: `shaper-gen manifests` reads the options statically and
 * writes the policy and its binding into the chart; `shaper-gen/testing`
 * evaluates it locally. `serve` ignores it: there is nothing to serve.
 */
import { resolveValidatingPolicyOptions } from '../options/policy-resolve.js';
import type { ResolvedValidatingPolicy, ValidatingPolicyOptions } from '../options/policy-types.js';
import { ConfigError } from '../problems.js';

const POLICY_METADATA = Symbol.for('shaper-gen.validating-policy');

/** An unknown key (`validation: [...]`) is a type error in the editor, as for `@Webhook`. */
type KnownOptionsOnly<O> = O & Readonly<Record<Exclude<keyof O, keyof ValidatingPolicyOptions>, never>>;

/**
 * Marks a class as a ValidatingAdmissionPolicy. The class may have an empty body.
 *
 * @shaperGenMarker validatingPolicy
 */
export function ValidatingPolicy<const O extends ValidatingPolicyOptions>(options: KnownOptionsOnly<O>) {
  return <C extends abstract new (...args: never[]) => unknown>(target: C, context?: ClassDecoratorContext<C>): void => {
    const kind = (context as { kind?: unknown } | undefined)?.kind;
    if (context !== undefined && kind !== 'class') throw new TypeError(`@ValidatingPolicy decorates classes, not a ${String(kind)}`);
    const { policy, problems } = resolveValidatingPolicyOptions(options, target.name);
    if (!policy) throw new ConfigError(problems, `@ValidatingPolicy options of ${target.name}`, { root: 'options' });
    Object.defineProperty(target, POLICY_METADATA, { value: policy, enumerable: false });
  };
}

/** The resolved options of a class decorated with `@ValidatingPolicy`, or undefined. */
export function validatingPolicyOf(target: unknown): ResolvedValidatingPolicy | undefined {
  if (typeof target !== 'function') return undefined;
  return Object.prototype.hasOwnProperty.call(target, POLICY_METADATA) ? (target as unknown as Record<symbol, ResolvedValidatingPolicy>)[POLICY_METADATA] : undefined;
}
