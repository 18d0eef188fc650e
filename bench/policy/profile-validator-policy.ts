import { ValidatingPolicy } from 'shaper-gen';
import { GROUP, VERSION } from '../../sample/api/group.ts';
import { GUARD_LABEL } from './guard-label.ts';

/**
 * The sample's ProfileValidator (sample/webhooks/profile-validator.ts) as a
 * ValidatingAdmissionPolicy: the same checks of a Profile's spec and the same
 * immutable tier, in CEL, so that the benchmark compares the same decision
 * made by the API server itself and by a webhook call. One edge differs: the
 * webhook admits the quantity "-0" (not below zero), this refuses any sign but "+".
 */
@ValidatingPolicy({
  name: 'profile-validator-policy.bench.shaper-gen.io',
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['profiles'], operations: ['CREATE', 'UPDATE'] }],
  namespaceSelector: { matchLabels: { [GUARD_LABEL]: 'policy' } },
  validations: [
    { expression: 'has(object.spec)', message: 'spec: Required value' },
    { expression: "!has(object.spec.tier) || object.spec.tier in ['bronze', 'silver', 'gold']", message: 'spec.tier: Unsupported value: supported values: "bronze", "silver", "gold"' },
    { expression: '!has(object.spec.priority) || (object.spec.priority >= 0 && object.spec.priority <= 1000)', message: 'spec.priority: must be a whole number from 0 to 1000' },
    {
      expression:
        "!has(object.spec.resources) || !has(object.spec.resources.cpu) || string(object.spec.resources.cpu).matches('^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$')",
      message: 'spec.resources.cpu: must be a quantity like "500m", "2" or "1Gi", not negative',
    },
    {
      expression:
        "!has(object.spec.resources) || !has(object.spec.resources.memory) || string(object.spec.resources.memory).matches('^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$')",
      message: 'spec.resources.memory: must be a quantity like "500m", "2" or "1Gi", not negative',
    },
    { expression: '!has(object.spec.description) || object.spec.description.size() <= 256', message: 'spec.description: may not be longer than 256 characters' },
    {
      expression: "request.operation != 'UPDATE' || !has(oldObject.spec) || !has(oldObject.spec.tier) || (has(object.spec.tier) && object.spec.tier == oldObject.spec.tier)",
      message: 'spec.tier: field is immutable; create a new Profile instead',
    },
  ],
})
export class ProfileValidatorPolicy {}
