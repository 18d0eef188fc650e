import type { KubernetesObject, LabelSelector } from 'shaper-gen';

export const MIN_WEIGHT = 1;
export const MAX_WEIGHT = 100;
export const DEFAULT_WEIGHT = 50;

export interface AssignmentSpec {
  /** The Profile, in the Assignment's namespace; immutable. */
  profileRef?: { name?: string };
  /** The workloads the profile applies to; must not be empty. */
  selector?: LabelSelector;
  /**
   * From 1 to 100; defaulted to 50.
   * @shaper:minimum {@link MIN_WEIGHT}
   * @shaper:maximum {@link MAX_WEIGHT}
   */
  weight?: number;
}

/**
 * Binds a Profile to the workloads its selector matches.
 *
 * @shaper:resource shortName=asg categories=shaper
 * @shaper:subresource status
 * @shaper:printcolumn name=Profile type=string jsonPath=.spec.profileRef.name
 * @shaper:printcolumn name=Weight type=integer jsonPath=.spec.weight
 * @shaper:printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp
 */
export interface Assignment extends KubernetesObject {
  spec?: AssignmentSpec;
  status?: {
    /** Number of workloads the selector matched at last count. */
    matched?: number;
  };
}
