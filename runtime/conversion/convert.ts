/**
 * The conversion itself, shared by `serve` and `shaper-gen/testing`: each
 * object goes spoke → hub → spoke through the registered converter of its
 * kind. Any object that cannot be converted fails the whole request, as the
 * API server needs every object or none (controller-runtime does the same).
 */
import { asJsonValue } from '../webhook/admission/json-value.js';
import type { KubernetesObject } from '../webhook/contract.js';
import { describeThrown } from '../thrown.js';
import type { RegisteredConversion } from './registered.js';

/** Converters by `group/Kind`. */
export type ConversionsByKind = ReadonlyMap<string, RegisteredConversion>;

export function conversionKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}

/** A conversion that failed: the message the API server shows, and what the converter threw, for the log. */
export class ConversionFailure extends Error {
  override name = 'ConversionFailure';
  constructor(
    message: string,
    readonly thrown?: unknown,
  ) {
    super(message);
  }
}

export interface ConvertedObject {
  readonly object: KubernetesObject;
  /** `group/Kind`, the version it came from and the one it went to; undefined when it was already there. */
  readonly step?: { readonly kind: string; readonly from: string; readonly to: string };
}

/** Converts every object to `desiredAPIVersion`, or throws ConversionFailure naming the first that cannot be. */
export function convertObjects(conversions: ConversionsByKind, objects: readonly unknown[], desiredAPIVersion: string): ConvertedObject[] {
  const desired = splitApiVersion(desiredAPIVersion);
  if (!desired) throw new ConversionFailure(`desiredAPIVersion ${JSON.stringify(desiredAPIVersion)} is not group/version`);
  return objects.map((object, index) => convertOne(conversions, object, index, desired));
}

function convertOne(conversions: ConversionsByKind, object: unknown, index: number, desired: { group: string; version: string }): ConvertedObject {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) throw new ConversionFailure(`objects[${index}] is not an object`);
  const input = object as KubernetesObject;
  const { apiVersion, kind } = input;
  const from = typeof apiVersion === 'string' ? splitApiVersion(apiVersion) : undefined;
  if (!from) throw new ConversionFailure(`objects[${index}] has no apiVersion of the form group/version`);
  if (typeof kind !== 'string' || kind === '') throw new ConversionFailure(`objects[${index}] has no kind`);
  const described = `${kind} ${objectName(input)}`;
  if (from.group !== desired.group) throw new ConversionFailure(`${described} is in group ${from.group}; it cannot be converted to ${desired.group}/${desired.version}`);
  const registered = conversions.get(conversionKey(from.group, kind));
  if (!registered) {
    const served = [...conversions.keys()].join(', ') || 'none';
    throw new ConversionFailure(`no conversion for ${kind} in group ${from.group} is served here (converters: ${served})`);
  }
  if (from.version === desired.version) return { object: input };
  const { conversion } = registered;
  const known = [conversion.hub, ...registered.spokes.keys()];
  for (const version of [from.version, desired.version]) {
    if (!known.includes(version)) {
      throw new ConversionFailure(`${registered.source} cannot convert ${kind} ${version}: it converts ${known.join(', ')} (hub ${conversion.hub}); add spokes.${version}`);
    }
  }
  const step = (what: string, run: () => unknown, version: string, original: KubernetesObject): KubernetesObject => {
    let result: unknown;
    try {
      result = run();
    } catch (error) {
      // A converter may throw anything (null, an Error whose message getter throws, a revoked Proxy): described without throwing.
      throw new ConversionFailure(`converting ${described} from ${from.group}/${from.version} to ${desired.group}/${desired.version}: ${what} failed: ${describeThrown(error).message}`, error);
    }
    try {
      return settle(result, `${registered.source} ${what}`, `${from.group}/${version}`, kind, original);
    } catch (error) {
      if (error instanceof ConversionFailure) throw error;
      throw new ConversionFailure(`${registered.source} ${what} returned a value that cannot be read: ${describeThrown(error).message}`, error);
    }
  };
  const hub = from.version === conversion.hub ? input : step(`spokes.${from.version}.toHub`, () => registered.spokes.get(from.version)!.toHub(input as never), conversion.hub, input);
  const output = desired.version === conversion.hub ? hub : step(`spokes.${desired.version}.fromHub`, () => registered.spokes.get(desired.version)!.fromHub(hub as never), desired.version, hub);
  return { object: output, step: { kind: conversionKey(from.group, kind), from: from.version, to: desired.version } };
}

/** A converter's result made the JSON object of `apiVersion` and `kind` the answer carries, with the input's metadata when it has none. */
function settle(result: unknown, what: string, apiVersion: string, kind: string, input: KubernetesObject): KubernetesObject {
  if (typeof (result as { then?: unknown } | null)?.then === 'function') throw new ConversionFailure(`${what} returned a Promise; conversions must be synchronous`);
  if (typeof result !== 'object' || result === null || Array.isArray(result))
    throw new ConversionFailure(`${what} returned ${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result}, not an object`);
  let object: KubernetesObject;
  try {
    object = asJsonValue(result) as KubernetesObject;
  } catch (error) {
    // Thrown while the answer is written, it would leave the API server an HTTP 500 instead of a Failure naming the converter.
    throw new ConversionFailure(`${what} returned an object JSON cannot carry: ${describeThrown(error).message}`, error);
  }
  // A copy, not an assignment: the result may be frozen (immer's produce freezes what it returns).
  const { apiVersion: _apiVersion, kind: _kind, ...fields } = object;
  return { apiVersion, kind, ...fields, ...(fields.metadata === undefined && input.metadata !== undefined && { metadata: input.metadata }) };
}

function splitApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const slash = apiVersion.indexOf('/');
  if (slash <= 0 || slash === apiVersion.length - 1 || apiVersion.slice(slash + 1).includes('/')) return undefined;
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `namespace/name` for messages; a review's metadata is whatever its JSON held, so only strings are shown. */
function objectName(object: KubernetesObject): string {
  const { namespace, name } = (object.metadata ?? {}) as { namespace?: unknown; name?: unknown };
  const shown = typeof name === 'string' && name !== '' ? name : '(no name)';
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}/${shown}` : shown;
}
