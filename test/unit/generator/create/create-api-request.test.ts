/** `shaper-gen create api`'s flags: each name the API server or kubebuilder's layout would refuse, as the one line the user sees. */
import { describe, expect, it } from 'vitest';
import { checkApiRequest } from '../../../../generator/src/create/api-request.js';

const GOOD = { group: 'webapp.example.com', version: 'v1', kind: 'Guestbook' };
const refusal = (flags: Partial<typeof GOOD> & { plural?: string }) => {
  try {
    checkApiRequest({ ...GOOD, ...flags });
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('create api names', () => {
  it('takes a DNS subdomain group, a Kubernetes version, an UpperCamel kind; scope and webhooks from the flags', () => {
    expect(checkApiRequest({ ...GOOD, cluster: true, validator: true })).toEqual({ ...GOOD, scope: 'Cluster', validator: true, defaulter: false });
    expect(checkApiRequest({ ...GOOD, version: 'v1beta2', namespaced: true, plural: 'books', dir: 'src/model' })).toEqual({
      ...GOOD,
      version: 'v1beta2',
      scope: 'Namespaced',
      plural: 'books',
      validator: false,
      defaulter: false,
      dir: 'src/model',
    });
    expect(checkApiRequest({ ...GOOD, version: 'v2alpha10', kind: 'CronJob2' })).toMatchObject({ version: 'v2alpha10', kind: 'CronJob2' });
  });

  it.each([
    ['Webapp.example.com', '--group: the API group "Webapp.example.com" must be a lower-case DNS subdomain with at least one dot, like example.com'],
    ['webapp', '--group: the API group "webapp" must be a lower-case DNS subdomain with at least one dot, like example.com'],
    ['web_app.example.com', '--group: the API group "web_app.example.com" must be a lower-case DNS subdomain with at least one dot, like example.com'],
    ['-webapp.example.com', '--group: the API group "-webapp.example.com" must be a lower-case DNS subdomain with at least one dot, like example.com'],
    [`${'a'.repeat(251)}.io`, `--group: the API group "${'a'.repeat(251)}.io" must be a lower-case DNS subdomain with at least one dot, like example.com`],
  ])('refuses the group %j', (group, message) => expect(refusal({ group })).toBe(message));

  it.each(['1', 'V1', 'v1.0', 'v1alpha', 'v1gamma1', 'version1', 'v1-beta1', ''])('refuses the version %j', (version) =>
    expect(refusal({ version })).toBe(`--version: the version ${JSON.stringify(version)} must be v<N>, v<N>alpha<M> or v<N>beta<M>, like v1, v1alpha1 or v1beta2`),
  );

  it.each(['guestbook', 'Guest-book', 'Guest_Book', '1Guestbook', `G${'b'.repeat(63)}`])('refuses the kind %j', (kind) =>
    expect(refusal({ kind })).toBe(`--kind: ${kind}: a kind is an upper-case letter followed by letters and digits (UpperCamelCase, like CronJob), at most 63 characters`),
  );

  it.each(['Guestbooks', 'guest.books', '9books'])('refuses the plural %j', (plural) =>
    expect(refusal({ plural })).toBe(`--plural: the resource name ${JSON.stringify(plural)} must be a lower-case DNS label starting with a letter, like "guestbooks"`),
  );

  it('reports the first bad flag only, in the order group, version, kind', () => {
    expect(refusal({ group: 'x', version: 'y', kind: 'z' })).toBe('--group: the API group "x" must be a lower-case DNS subdomain with at least one dot, like example.com');
  });
});
