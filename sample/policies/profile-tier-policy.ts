import { ValidatingPolicy } from 'shaper-gen';
import { GROUP, VERSION } from '../api/group.js';

/**
 * Rules on a Profile's tier the API server checks itself, with no call to the
 * webhook server: a gold Profile has priority 500 or more, and the tier never
 * changes once set. Every request records the tier in the audit log.
 */
@ValidatingPolicy({
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['profiles'], operations: ['CREATE', 'UPDATE'] }],
  variables: [{ name: 'tier', expression: "has(object.spec) && has(object.spec.tier) ? object.spec.tier : ''" }],
  validations: [
    {
      expression: "variables.tier != 'gold' || !has(object.spec.priority) || object.spec.priority >= 500",
      messageExpression: "'a gold Profile needs priority 500 or more, got ' + string(object.spec.priority)",
      reason: 'Invalid',
    },
    {
      expression: "request.operation != 'UPDATE' || !has(oldObject.spec) || !has(oldObject.spec.tier) || variables.tier == oldObject.spec.tier",
      message: 'spec.tier is immutable once set',
    },
  ],
  auditAnnotations: [{ key: 'tier', valueExpression: 'string(variables.tier)' }],
})
export class ProfileTierPolicy {}
