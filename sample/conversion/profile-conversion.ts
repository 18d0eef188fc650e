import { Conversion, type Converter, type SpokeConversion } from 'shaper-gen';
import { GROUP } from '../api/group.js';
import type { Profile as ProfileV1alpha1 } from '../api/profile.js';
import { VERSION as HUB } from '../api/v1beta1/group.js';
import type { Profile as ProfileV1beta1, ProfileScheduling } from '../api/v1beta1/profile.js';

/**
 * Where a v1alpha1 Profile keeps what only v1beta1 can say (`spec.scheduling`
 * beyond its priority, as JSON), so that v1beta1 → v1alpha1 → v1beta1 loses
 * nothing: the Profiles are stored as v1alpha1.
 */
export const SCHEDULING_ANNOTATION = 'shaper.io/v1beta1-scheduling';

/** Profile v1alpha1 ⇄ v1beta1 (the hub): `spec.priority` ⇄ `spec.scheduling.priority`, `spec.resources` ⇄ `spec.requests`. */
@Conversion({ group: GROUP, kind: 'Profile', hub: HUB })
export class ProfileConversion implements Converter<ProfileV1beta1, { v1alpha1: ProfileV1alpha1 }> {
  readonly spokes = { v1alpha1: v1alpha1 };
}

const v1alpha1: SpokeConversion<ProfileV1alpha1, ProfileV1beta1> = {
  toHub({ spec, ...rest }) {
    const hub: ProfileV1beta1 = rest;
    const kept = takeAnnotation(hub);
    if (!spec && !kept) return hub;
    const { priority, resources, ...same } = spec ?? {};
    const scheduling: ProfileScheduling | undefined = kept ?? (priority === undefined ? undefined : {});
    if (scheduling && priority !== undefined) scheduling.priority = priority;
    hub.spec = { ...same, ...(scheduling && { scheduling }), ...(resources && { requests: resources }) };
    return hub;
  },

  fromHub({ spec, ...rest }) {
    const spoke: ProfileV1alpha1 = rest;
    if (!spec) return spoke;
    const { scheduling, requests, ...same } = spec;
    spoke.spec = { ...same, ...(scheduling?.priority !== undefined && { priority: scheduling.priority }), ...(requests && { resources: requests }) };
    if (scheduling) {
      const { priority, ...beyond } = scheduling;
      // Only a priority fits v1alpha1's own field; anything else (or an empty scheduling) is kept aside.
      if (Object.keys(beyond).length > 0 || priority === undefined) keepAnnotation(spoke, beyond);
    }
    return spoke;
  },
};

/** The kept scheduling, removed from the object; undefined when there is none, or it is not an object (left in place). */
function takeAnnotation(object: ProfileV1beta1): ProfileScheduling | undefined {
  const { [SCHEDULING_ANNOTATION]: text, ...others } = object.metadata?.annotations ?? {};
  if (text === undefined) return undefined;
  let kept: unknown;
  try {
    kept = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof kept !== 'object' || kept === null || Array.isArray(kept)) return undefined;
  object.metadata = { ...object.metadata, annotations: others };
  if (Object.keys(others).length === 0) delete object.metadata.annotations;
  return kept;
}

function keepAnnotation(object: ProfileV1alpha1, scheduling: Omit<ProfileScheduling, 'priority'>): void {
  object.metadata = { ...object.metadata, annotations: { ...object.metadata?.annotations, [SCHEDULING_ANNOTATION]: JSON.stringify(scheduling) } };
}
