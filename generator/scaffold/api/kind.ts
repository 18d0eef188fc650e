import type { KubernetesObject } from 'shaper-gen';

/** The desired state of a __KIND__. */
export interface __KIND__Spec {
  /**
   * An example field: replace it with the fields of your API.
   * @shaper:maxLength 64
   */
  foo?: string;
}

/** The observed state of a __KIND__. */
export interface __KIND__Status {
  /**
   * The metadata.generation this status describes.
   * @shaper:minimum 0
   */
  observedGeneration?: number;
}

/**
 * A __KIND__ (__GROUP__/__VERSION__).
 *
 * __RESOURCEMARKER__
 * @shaper:subresource status
 */
export interface __KIND__ extends KubernetesObject {
  spec?: __KIND__Spec;
  status?: __KIND__Status;
}
