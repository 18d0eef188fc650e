import type { KubernetesObject, LabelSelector } from 'shaper-gen';

export const MIN_WEIGHT = 1;
export const MAX_WEIGHT = 100;
export const DEFAULT_WEIGHT = 50;

export interface AssignmentSpec {
  /** The Profile, in the Assignment's namespace. */
  profileRef?: { name?: string };
  /** The workloads the profile applies to. */
  selector?: LabelSelector;
  weight?: number;
}

/** Binds a Profile to the workloads its selector matches. */
export interface Assignment extends KubernetesObject {
  spec?: AssignmentSpec;
  status?: { matched?: number };
}
