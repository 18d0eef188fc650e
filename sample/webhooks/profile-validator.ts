import { Webhook, assertValid, field, type CustomValidator, type FieldError, type Warnings } from 'shaper-gen';
import { GROUP, VERSION } from '../api/group.js';
import { MAX_DESCRIPTION_LENGTH, MAX_PRIORITY, MIN_PRIORITY, PROFILE_TIERS, type Profile } from '../api/profile.js';
import { isNegativeQuantity, isQuantity } from '../api/quantity.js';

/** Rejects Profiles out of range or malformed, and any change of tier once set. */
@Webhook({
  path: '/validate-profile',
  mutating: false,
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['profiles'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  // Fail: an invalid Profile admitted during an outage would be served to workloads.
  failurePolicy: 'Fail',
  sideEffects: 'None',
  // Checks only the object; 5 s is generous and keeps API latency bounded if the pod is unwell.
  timeoutSeconds: 5,
})
export class ProfileValidator implements CustomValidator<Profile> {
  validateCreate(profile: Profile): Warnings {
    assertValid(specErrors(profile));
  }

  validateUpdate(oldProfile: Profile, profile: Profile): Warnings {
    const errors = specErrors(profile);
    const before = oldProfile.spec?.tier;
    if (before !== undefined && profile.spec?.tier !== before) {
      errors.push(field.invalid('spec.tier', profile.spec?.tier ?? null, `field is immutable (was ${JSON.stringify(before)}); create a new Profile instead`));
    }
    assertValid(errors);
  }
}

function specErrors(profile: Profile): FieldError[] {
  const errors: FieldError[] = [];
  const spec = profile.spec;
  if (!spec) return [field.required('spec')];
  if (spec.tier !== undefined && !PROFILE_TIERS.includes(spec.tier)) errors.push(field.notSupported('spec.tier', spec.tier, PROFILE_TIERS));
  const { priority } = spec;
  if (priority !== undefined && (!Number.isInteger(priority) || priority < MIN_PRIORITY || priority > MAX_PRIORITY)) {
    errors.push(field.invalid('spec.priority', priority, `must be a whole number from ${MIN_PRIORITY} to ${MAX_PRIORITY}`));
  }
  for (const resource of ['cpu', 'memory'] as const) {
    const quantity = spec.resources?.[resource];
    if (quantity === undefined) continue;
    const path = `spec.resources.${resource}`;
    if (!isQuantity(quantity)) errors.push(field.invalid(path, quantity, 'must be a quantity like "500m", "2" or "1Gi"'));
    else if (isNegativeQuantity(quantity)) errors.push(field.invalid(path, quantity, 'must not be negative'));
  }
  if (spec.description !== undefined && spec.description.length > MAX_DESCRIPTION_LENGTH) {
    errors.push({ field: 'spec.description', type: 'FieldValueTooLong', message: `may not be longer than ${MAX_DESCRIPTION_LENGTH} characters` });
  }
  return errors;
}
