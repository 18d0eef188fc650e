/**
 * The object a defaulter receives, and what it left once it returned, as
 * plain JSON for the diff. A decoded object gets a change-tracking view
 * (tracked-object.ts), so that the diff skips what the handler never reached;
 * anything else (a test's object holding a Date) gets a deep copy, whose
 * result is checked whole.
 */
import type { KubernetesObject } from '../contract.js';
import { asJsonValue, cloneJson, isPlainJson, toJsonValue } from './json-value.js';
import { NOT_PLAIN, TrackedObject } from './tracked-object.js';

export interface DefaulterObject {
  readonly object: KubernetesObject;
  /** What default() returned, or else the object it changed, as plain JSON; throws UnrepresentableValue naming the field JSON cannot carry. */
  result(returned: unknown): KubernetesObject;
}

export function defaulterObject(original: KubernetesObject, decodedFromJson: boolean): DefaulterObject {
  if (!decodedFromJson && !isPlainJson(original)) {
    const copy = cloneJson(original);
    return { object: copy, result: (returned) => asJsonValue(returned ?? copy) as KubernetesObject };
  }
  const tracked = new TrackedObject(original);
  const object = tracked.view as KubernetesObject;
  return {
    object,
    result(returned) {
      const value = returned ?? object;
      const settled = tracked.settle(value);
      return (settled === NOT_PLAIN ? toJsonValue(value) : settled) as KubernetesObject;
    },
  };
}
