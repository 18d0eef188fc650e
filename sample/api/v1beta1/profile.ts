import type { KubernetesObject } from 'shaper-gen';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the bounds are used by {@link} in the @shaper: markers below
import { MAX_DESCRIPTION_LENGTH, MAX_PRIORITY, MIN_PRIORITY, type ProfileTier } from '../profile.js';

/**
 * How a Profile's workloads are scheduled. v1beta1 groups what v1alpha1 kept in
 * `spec.priority` here, beside `preemptible`, which v1alpha1 cannot hold.
 */
export interface ProfileScheduling {
  /**
   * Scheduling priority from 0 to 1000; defaulted from the tier.
   * @shaper:minimum {@link MIN_PRIORITY}
   * @shaper:maximum {@link MAX_PRIORITY}
   */
  priority?: number;
  /** Whether the workloads may be preempted by higher-priority ones. */
  preemptible?: boolean;
}

export interface ProfileSpec {
  /** Service tier; defaulted to bronze, immutable once set. */
  tier?: ProfileTier;
  scheduling?: ProfileScheduling;
  /** Resource quantities the workloads request (v1alpha1: `resources`), as in a container's resources ("500m", "1Gi"). */
  requests?: {
    /** CPU quantity, like 500m or 2. */
    cpu?: string | number;
    /** Memory quantity, like 512Mi. */
    memory?: string | number;
  };
  /** @shaper:maxLength {@link MAX_DESCRIPTION_LENGTH} */
  description?: string;
}

/**
 * A shaping profile, v1beta1: the hub every other version of Profile converts
 * through (sample/conversion/profile-conversion.ts).
 *
 * @shaper:resource shortName=prof categories=shaper
 * @shaper:subresource status
 * @shaper:printcolumn name=Tier type=string jsonPath=.spec.tier
 * @shaper:printcolumn name=Priority type=integer jsonPath=.spec.scheduling.priority
 * @shaper:printcolumn name=Preemptible type=boolean jsonPath=.spec.scheduling.preemptible
 * @shaper:printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp
 */
export interface Profile extends KubernetesObject {
  spec?: ProfileSpec;
  status?: {
    /** Number of Assignments referencing this Profile. */
    assignments?: number;
  };
}
