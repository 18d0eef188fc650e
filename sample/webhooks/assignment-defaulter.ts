import { Webhook, type CustomDefaulter } from 'shaper-gen';
import { DEFAULT_WEIGHT, type Assignment } from '../api/assignment.js';
import { GROUP, VERSION } from '../api/group.js';

/** Gives an Assignment the middle weight when it sets none. */
@Webhook({
  path: '/mutate-assignment',
  mutating: true,
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['assignments'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  // Fail: the validator and consumers rely on a weight being present.
  failurePolicy: 'Fail',
  sideEffects: 'None',
  timeoutSeconds: 5,
  // Only spec.weight is touched, which no other webhook is expected to change: one pass is enough.
  reinvocationPolicy: 'Never',
})
export class AssignmentDefaulter implements CustomDefaulter<Assignment> {
  default(assignment: Assignment): void {
    const spec = (assignment.spec ??= {});
    spec.weight ??= DEFAULT_WEIGHT;
  }
}
