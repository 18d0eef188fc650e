import { ValidatingPolicy } from 'shaper-gen';
import { GROUP, VERSION } from '../api/group.js';

/** A Profile should say what it is for: a warning, never a refusal. */
@ValidatingPolicy({
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['profiles'], operations: ['CREATE', 'UPDATE'] }],
  validations: [{ expression: 'has(object.spec.description) && object.spec.description.trim().size() > 0', message: 'a Profile should say what it is for in spec.description' }],
  validationActions: ['Warn'],
})
export class ProfileDescriptionPolicy {}
