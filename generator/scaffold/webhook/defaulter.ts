import { Webhook, type CustomDefaulter } from 'shaper-gen';
__APIIMPORTS__

export const DEFAULT_FOO = 'example';

/** Fills in what a __KIND__ leaves unset. Idempotent: a second pass over its own output changes nothing. */
@Webhook({
  path: '/mutate-__PATHNAME__',
  mutating: true,
  rules: [{ groups: [__GROUPCONST__], versions: [__VERSIONCONST__], resources: ['__PLURAL__'], operations: ['CREATE', 'UPDATE'], scope: '__SCOPE__' }],
  failurePolicy: 'Fail',
  sideEffects: 'None',
  timeoutSeconds: 5,
})
export class __KIND__Defaulter implements CustomDefaulter<__KIND__> {
  default(object: __KIND__): void {
    // An example default: replace it with yours.
    const spec = (object.spec ??= {});
    spec.foo ??= DEFAULT_FOO;
  }
}
