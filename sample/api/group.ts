/**
 * The shaper.io API group the sample's CRDs live in: every kind declared in
 * this directory (sample/api/) gets this group and VERSION.
 * @shaper:groupName
 */
export const GROUP = 'shaper.io';
/** @shaper:versionName */
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Label the Profile defaulter sets from spec.tier, so workloads can select by tier. */
export const TIER_LABEL = 'shaper.io/tier';
/** An Assignment with this label set to "true" cannot be deleted. */
export const PROTECTED_LABEL = 'shaper.io/protected';
/** On an Assignment: the name of the Profile it refers to, so that Assignments can be selected by Profile. */
export const PROFILE_LABEL = 'shaper.io/profile';
