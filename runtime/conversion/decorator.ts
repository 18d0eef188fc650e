/**
 * `@Conversion({ group, kind, hub })` on a converter class: `shaper-gen
 * manifests` reads the options statically and points the kind's CRD at the
 * conversion webhook; `shaper-gen serve` answers ConversionReviews at its path
 * with an instance of the class; `shaper-gen/testing` converts through it.
 */
import { ConfigError } from '../problems.js';
import { resolveConversionOptions } from './options.js';
import type { ConversionOptions, Converter, ResolvedConversion } from './types.js';

const CONVERSION_METADATA = Symbol.for('shaper-gen.conversion');

/** An unknown key (`hubVersion: …`) is a type error in the editor, as for `@Webhook`. */
type KnownOptionsOnly<O> = O & Readonly<Record<Exclude<keyof O, keyof ConversionOptions>, never>>;

/**
 * Marks a class as the conversion webhook of one kind: an implementation of
 * `Converter<Hub, { spoke versions }>`.
 *
 * @shaperGenMarker conversion
 */
export function Conversion<const O extends ConversionOptions>(options: KnownOptionsOnly<O>) {
  return <C extends abstract new (...args: never[]) => Converter>(target: C, context?: ClassDecoratorContext<C>): void => {
    const kind = (context as { kind?: unknown } | undefined)?.kind;
    if (context !== undefined && kind !== 'class') throw new TypeError(`@Conversion decorates classes, not a ${String(kind)}`);
    const { conversion, problems } = resolveConversionOptions(options);
    if (!conversion) throw new ConfigError(problems, `@Conversion options of ${target.name}`, { root: 'options' });
    Object.defineProperty(target, CONVERSION_METADATA, { value: conversion, enumerable: false });
  };
}

/** The resolved options of a class decorated with `@Conversion`, or undefined. */
export function conversionOf(target: unknown): ResolvedConversion | undefined {
  if (typeof target !== 'function') return undefined;
  return Object.prototype.hasOwnProperty.call(target, CONVERSION_METADATA) ? (target as unknown as Record<symbol, ResolvedConversion>)[CONVERSION_METADATA] : undefined;
}
