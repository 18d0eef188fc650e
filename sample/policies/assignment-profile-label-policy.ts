import { MutatingPolicy } from 'shaper-gen';
import { GROUP, PROFILE_LABEL, VERSION } from '../api/group.js';

/**
 * Labels an Assignment with the Profile it refers to, so that
 * `kubectl get assignments -l shaper.io/profile=gold` lists a Profile's
 * Assignments. One CEL expression, merged by the API server as server-side
 * apply merges: no webhook call. The AssignmentDefaulter webhook, which needs
 * code, fills in spec.weight beside it.
 */
@MutatingPolicy({
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['assignments'], operations: ['CREATE', 'UPDATE'] }],
  // A label value holds at most 63 characters; a longer Profile name is left unlabelled rather than refused.
  matchConditions: [{ name: 'names-a-profile', expression: 'has(object.spec.profileRef) && has(object.spec.profileRef.name) && object.spec.profileRef.name.size() <= 63' }],
  mutations: [
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {'${PROFILE_LABEL}': object.spec.profileRef.name}}}` },
    },
  ],
})
export class AssignmentProfileLabelPolicy {}
