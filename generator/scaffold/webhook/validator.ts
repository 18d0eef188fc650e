import { Webhook, assertValid, field, type CustomValidator, type FieldError, type Warnings } from 'shaper-gen';
__APIIMPORTS__

/** Checks __KIND__ objects before the API server stores them. */
@Webhook({
  path: '/validate-__PATHNAME__',
  mutating: false,
  rules: [{ groups: [__GROUPCONST__], versions: [__VERSIONCONST__], resources: ['__PLURAL__'], operations: ['CREATE', 'UPDATE'], scope: '__SCOPE__' }],
  failurePolicy: 'Fail',
  sideEffects: 'None',
  timeoutSeconds: 5,
})
export class __KIND__Validator implements CustomValidator<__KIND__> {
  validateCreate(object: __KIND__): Warnings {
    assertValid(specErrors(object));
  }

  validateUpdate(_old: __KIND__, object: __KIND__): Warnings {
    assertValid(specErrors(object));
  }
}

function specErrors(object: __KIND__): FieldError[] {
  const errors: FieldError[] = [];
  // An example rule: replace it with yours. All errors are reported at once, as the API server does.
  if (object.spec?.foo === '') errors.push(field.invalid('spec.foo', '', 'must not be empty when set'));
  return errors;
}
