/**
 * The object a defaulter receives, and the patch from what it left once it
 * returned. A decoded object gets a change-tracking view (tracked-object.ts),
 * so that the diff skips what the handler never reached and reads the rest
 * through the view's copies; anything else (a test's object holding a Date)
 * gets a deep copy, whose result is checked whole.
 */
import type { KubernetesObject } from '../contract.js';
import { asJsonValue, cloneJson, isPlainJson, NOT_PLAIN, toJsonValue } from './json-value.js';
import { diffChanged, diffObjects, type PatchOperation } from './patch.js';
import { TrackedObject } from './tracked-object.js';

export interface DefaulterObject {
  readonly object: KubernetesObject;
  /** The operations from the original to what default() returned, or else to the object it changed; throws UnrepresentableValue naming the field JSON cannot carry. */
  patch(returned: unknown): PatchOperation[];
}

export function defaulterObject(original: KubernetesObject, decodedFromJson: boolean): DefaulterObject {
  if (!decodedFromJson && !isPlainJson(original)) {
    const copy = cloneJson(original);
    return { object: copy, patch: (returned) => diffObjects(original, asJsonValue(returned ?? copy) as KubernetesObject) };
  }
  const tracked = new TrackedObject(original);
  const object = tracked.view as KubernetesObject;
  return {
    object,
    patch(returned) {
      const value = returned ?? object;
      const operations = diffChanged(original, value, tracked);
      return operations === NOT_PLAIN ? diffObjects(original, toJsonValue(value) as KubernetesObject) : operations;
    },
  };
}
