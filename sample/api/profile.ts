import type { CachedResource, KubernetesObject } from 'shaper-gen';
import { GROUP, VERSION } from './group.js';

/** Profiles as the API serves them, for `@Webhook({ cache })` and `ctx.cache`. */
export const PROFILES: CachedResource = { group: GROUP, version: VERSION, resource: 'profiles' };

export const PROFILE_TIERS = ['bronze', 'silver', 'gold'] as const;
export type ProfileTier = (typeof PROFILE_TIERS)[number];

export const MIN_PRIORITY = 0;
export const MAX_PRIORITY = 1000;
export const MAX_DESCRIPTION_LENGTH = 256;

/** The priority a Profile gets from its tier when it does not set one. */
export const TIER_PRIORITY: Readonly<Record<ProfileTier, number>> = { bronze: 100, silver: 500, gold: 900 };
export const DEFAULT_TIER: ProfileTier = 'bronze';

export interface ProfileSpec {
  /** Service tier; defaulted to bronze, immutable once set. */
  tier?: ProfileTier;
  /**
   * Scheduling priority from 0 to 1000; defaulted from the tier.
   * @shaper:minimum {@link MIN_PRIORITY}
   * @shaper:maximum {@link MAX_PRIORITY}
   */
  priority?: number;
  /** Resource quantities, as in a container's resources ("500m", "1Gi"). */
  resources?: {
    /** CPU quantity, like 500m or 2. */
    cpu?: string | number;
    /** Memory quantity, like 512Mi. */
    memory?: string | number;
  };
  /** @shaper:maxLength {@link MAX_DESCRIPTION_LENGTH} */
  description?: string;
}

/**
 * A shaping profile: how much and how urgently the workloads it is assigned to get.
 * Stored as v1alpha1; v1beta1 (sample/api/v1beta1/) is served too, converted by
 * sample/conversion/profile-conversion.ts.
 *
 * @shaper:resource shortName=prof categories=shaper
 * @shaper:storageversion
 * @shaper:subresource status
 * @shaper:printcolumn name=Tier type=string jsonPath=.spec.tier
 * @shaper:printcolumn name=Priority type=integer jsonPath=.spec.priority
 * @shaper:printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp
 */
export interface Profile extends KubernetesObject {
  spec?: ProfileSpec;
  status?: {
    /** Number of Assignments referencing this Profile. */
    assignments?: number;
  };
}
