/** The shaper.io API group the sample's CRDs live in. */
export const GROUP = 'shaper.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Label the Profile defaulter sets from spec.tier, so workloads can select by tier. */
export const TIER_LABEL = 'shaper.io/tier';
/** An Assignment with this label set to "true" cannot be deleted. */
export const PROTECTED_LABEL = 'shaper.io/protected';
