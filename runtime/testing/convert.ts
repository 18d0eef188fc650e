/**
 * `convert()`: an object through a `@Conversion` class exactly as `serve`
 * converts it — the same path from spoke to hub to spoke, the same apiVersion,
 * kind and metadata handling, the same failure messages — for round-trip tests.
 */
import type { KubernetesObject } from '../webhook/contract.js';
import { conversionKey, convertObjects } from '../conversion/convert.js';
import { prepareConversion } from '../conversion/registered.js';
import type { Converter } from '../conversion/types.js';

export { ConversionFailure } from '../conversion/convert.js';

/**
 * Converts `object` to `desiredAPIVersion` (`group/version`) with the converter
 * (a `@Conversion` class or an instance of one). The object travels as JSON, as
 * it does from the API server: the caller's copy is never changed, and `undefined`
 * fields are dropped. Throws ConversionFailure with the message the API server
 * would show when the conversion fails.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the type of the version it converts to
export function convert<T extends KubernetesObject = KubernetesObject>(converter: Converter | (new () => Converter), object: KubernetesObject, desiredAPIVersion: string): T {
  const registered = prepareConversion(converter);
  const byKind = new Map([[conversionKey(registered.conversion.group, registered.conversion.kind), registered]]);
  const [converted] = convertObjects(byKind, [JSON.parse(JSON.stringify(object)) as unknown], desiredAPIVersion);
  return JSON.parse(JSON.stringify(converted!.object)) as T;
}
