/**
 * A converter class made ready to convert: its options, one instance, and the
 * instance's spokes checked (the decorator sees only the class; `spokes` exists
 * once it is constructed).
 */
import { isDnsLabel } from '../options/kubernetes-names.js';
import { conversionOf } from './decorator.js';
import type { Converter, ResolvedConversion, SpokeConversion } from './types.js';

export interface RegisteredConversion {
  readonly conversion: ResolvedConversion;
  /** Spoke version → its functions. */
  readonly spokes: ReadonlyMap<string, SpokeConversion<never, never>>;
  /** `ClassName` or `module#ClassName`, for messages and logs. */
  readonly source: string;
}

export class ConversionSetupError extends Error {
  override name = 'ConversionSetupError';
}

/**
 * Constructs a decorated converter class (or takes an instance of one) and checks its `spokes`; `origin` is the
 * module that listed it, named in its source as for webhooks (`module#ClassName`).
 */
export function prepareConversion(candidate: unknown, origin?: string): RegisteredConversion {
  const cls = typeof candidate === 'function' ? candidate : (candidate as object | null | undefined)?.constructor;
  const conversion = conversionOf(cls);
  const name = (cls as { name?: string } | undefined)?.name || '(anonymous class)';
  const source = origin === undefined ? name : `${origin}#${name}`;
  if (!conversion) throw new ConversionSetupError(`${source} is not decorated with @Conversion`);
  const instance = typeof candidate === 'function' ? construct(candidate as new () => Converter, name) : (candidate as Converter);
  return { conversion, spokes: checkSpokes(instance, conversion, name), source };
}

function construct(cls: new () => Converter, name: string): Converter {
  if (cls.length > 0) throw new ConversionSetupError(`${name} declares constructor parameters, which new ${name}() would leave undefined: give them defaults`);
  try {
    return new cls();
  } catch (error) {
    throw new ConversionSetupError(`constructing ${name} failed: ${(error as Error).message}`);
  }
}

function checkSpokes(instance: Converter, conversion: ResolvedConversion, name: string): Map<string, SpokeConversion<never, never>> {
  const spokes = (instance as { spokes?: unknown }).spokes;
  const example = `readonly spokes = { v1alpha1: { toHub, fromHub } }`;
  if (typeof spokes !== 'object' || spokes === null || Array.isArray(spokes)) throw new ConversionSetupError(`${name}.spokes must be an object of spoke versions, e.g. ${example}`);
  const entries = Object.entries(spokes as Record<string, unknown>);
  if (entries.length === 0) throw new ConversionSetupError(`${name}.spokes is empty: a conversion needs a version besides the hub ${conversion.hub}, e.g. ${example}`);
  const checked = new Map<string, SpokeConversion<never, never>>();
  for (const [version, spoke] of entries) {
    if (version === conversion.hub) throw new ConversionSetupError(`${name}.spokes.${version}: ${version} is the hub; list only the other versions`);
    if (!isDnsLabel(version)) throw new ConversionSetupError(`${name}.spokes: "${version}" is not a version name (a DNS label such as v1alpha1)`);
    const functions = spoke as Partial<Record<'toHub' | 'fromHub', unknown>> | null;
    for (const method of ['toHub', 'fromHub'] as const) {
      if (typeof functions?.[method] !== 'function') throw new ConversionSetupError(`${name}.spokes.${version}.${method} must be a function`);
    }
    checked.set(version, spoke as SpokeConversion<never, never>);
  }
  return checked;
}
