/**
 * What a conversion is, as its user writes it: `@Conversion` options, and the
 * converter class's contract — hub-and-spoke, as controller-runtime's
 * Hub/Convertible: every version other than the hub (a spoke) converts to and
 * from the hub, so N versions need N−1 pairs of functions, not N².
 */
import type { KubernetesObject } from '../webhook/contract.js';

export interface ConversionOptions {
  /** The kind's API group, e.g. the `@shaper:groupName` const of its API package. */
  readonly group: string;
  /** The kind, e.g. `'Profile'`. */
  readonly kind: string;
  /** The version every other version converts through (often the newest, e.g. `'v1beta1'`). */
  readonly hub: string;
  /** Where `serve` answers the API server's ConversionReviews: `/convert` (the default) or `/convert-<name>`. */
  readonly path?: string;
}

export interface ResolvedConversion {
  readonly group: string;
  readonly kind: string;
  readonly hub: string;
  readonly path: string;
}

/**
 * One spoke version ⇄ the hub. Each function gets an object of its own (decoded
 * from the review) that it may change and return, and must return synchronously:
 * the API server waits on conversion for every read and write of the kind.
 * `apiVersion` and `kind` of the result are set for you; `metadata` is copied from
 * the input when the result has none. The API server keeps only the labels and
 * annotations a conversion changes; every other metadata field is restored.
 */
export interface SpokeConversion<Spoke extends KubernetesObject, Hub extends KubernetesObject> {
  toHub(spoke: Spoke): Hub;
  fromHub(hub: Hub): Spoke;
}

/**
 * The class `@Conversion` decorates: `spokes` has one entry per version other
 * than the hub, keyed by the version's name.
 *
 * ```ts
 * class ProfileConversion implements Converter<ProfileV1beta1, { v1alpha1: ProfileV1alpha1 }> {
 *   readonly spokes = { v1alpha1: { toHub: …, fromHub: … } };
 * }
 * ```
 */
export interface Converter<Hub extends KubernetesObject = KubernetesObject, Spokes extends Record<string, KubernetesObject> = Record<string, KubernetesObject>> {
  readonly spokes: { readonly [Version in keyof Spokes]: SpokeConversion<Spokes[Version], Hub> };
}
