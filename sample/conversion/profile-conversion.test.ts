import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConversionFailure, convert } from 'shaper-gen/testing';
import { PROFILE_TIERS, type Profile as ProfileV1alpha1 } from '../api/profile.js';
import type { Profile as ProfileV1beta1 } from '../api/v1beta1/profile.js';
import { ProfileConversion, SCHEDULING_ANNOTATION } from './profile-conversion.js';

const V1ALPHA1 = 'shaper.io/v1alpha1';
const V1BETA1 = 'shaper.io/v1beta1';

/** Runs of the round-trip properties (each over this many generated Profiles). */
const RUNS = 2000;

const metadata = fc.record(
  {
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
    namespace: fc.constantFrom('team-a', 'team-b'),
    uid: fc.uuid(),
    resourceVersion: fc.nat().map(String),
    labels: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/), { minKeys: 1 }),
    annotations: fc.dictionary(fc.stringMatching(/^example\.com\/[a-z]{1,8}$/), fc.string(), { minKeys: 1 }),
  },
  { requiredKeys: ['name', 'namespace'] },
);
const quantity = fc.oneof(fc.constantFrom('500m', '1Gi', '2', '512Mi'), fc.nat(64));
const quantities = fc.record({ cpu: quantity, memory: quantity }, { requiredKeys: [] });
const common = { tier: fc.constantFrom(...PROFILE_TIERS), description: fc.string({ maxLength: 40 }) };
const status = fc.record({ assignments: fc.nat(50) }, { requiredKeys: [] });

const v1alpha1Profile: fc.Arbitrary<ProfileV1alpha1> = fc.record(
  {
    apiVersion: fc.constant(V1ALPHA1),
    kind: fc.constant('Profile'),
    metadata,
    spec: fc.record({ ...common, priority: fc.nat(1000), resources: quantities }, { requiredKeys: [] }),
    status,
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
);
const v1beta1Profile: fc.Arbitrary<ProfileV1beta1> = fc.record(
  {
    apiVersion: fc.constant(V1BETA1),
    kind: fc.constant('Profile'),
    metadata,
    spec: fc.record({ ...common, scheduling: fc.record({ priority: fc.nat(1000), preemptible: fc.boolean() }, { requiredKeys: [] }), requests: quantities }, { requiredKeys: [] }),
    status,
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
);

describe('ProfileConversion', () => {
  it('moves priority under scheduling and resources to requests, and back', () => {
    const alpha: ProfileV1alpha1 = {
      apiVersion: V1ALPHA1,
      kind: 'Profile',
      metadata: { name: 'fast', namespace: 'team-a', labels: { team: 'a' } },
      spec: { tier: 'gold', priority: 900, resources: { cpu: '500m' }, description: 'batch' },
      status: { assignments: 2 },
    };
    const beta = convert<ProfileV1beta1>(ProfileConversion, alpha, V1BETA1);
    expect(beta).toEqual({
      apiVersion: V1BETA1,
      kind: 'Profile',
      metadata: { name: 'fast', namespace: 'team-a', labels: { team: 'a' } },
      spec: { tier: 'gold', scheduling: { priority: 900 }, requests: { cpu: '500m' }, description: 'batch' },
      status: { assignments: 2 },
    });
    expect(convert(ProfileConversion, beta, V1ALPHA1)).toEqual(alpha);
  });

  it('keeps what v1alpha1 cannot hold in an annotation, and takes it back', () => {
    const beta: ProfileV1beta1 = { apiVersion: V1BETA1, kind: 'Profile', metadata: { name: 'spot', namespace: 'team-a' }, spec: { scheduling: { priority: 5, preemptible: true } } };
    const alpha = convert<ProfileV1alpha1>(ProfileConversion, beta, V1ALPHA1);
    expect(alpha).toEqual({
      apiVersion: V1ALPHA1,
      kind: 'Profile',
      metadata: { name: 'spot', namespace: 'team-a', annotations: { [SCHEDULING_ANNOTATION]: '{"preemptible":true}' } },
      spec: { priority: 5 },
    });
    expect(convert(ProfileConversion, alpha, V1BETA1)).toEqual(beta);
  });

  it('leaves an annotation that is not a JSON object where it is', () => {
    const alpha: ProfileV1alpha1 = { apiVersion: V1ALPHA1, kind: 'Profile', metadata: { name: 'p', annotations: { [SCHEDULING_ANNOTATION]: 'not json' } }, spec: { priority: 1 } };
    expect(convert(ProfileConversion, alpha, V1BETA1)).toEqual({
      apiVersion: V1BETA1,
      kind: 'Profile',
      metadata: { name: 'p', annotations: { [SCHEDULING_ANNOTATION]: 'not json' } },
      spec: { scheduling: { priority: 1 } },
    });
  });

  it('refuses a version it does not convert, with the message the API server shows', () => {
    const alpha: ProfileV1alpha1 = { apiVersion: V1ALPHA1, kind: 'Profile', metadata: { name: 'p', namespace: 'team-a' } };
    expect(() => convert(ProfileConversion, alpha, 'shaper.io/v2')).toThrow(
      new ConversionFailure('ProfileConversion cannot convert Profile v2: it converts v1beta1, v1alpha1 (hub v1beta1); add spokes.v2'),
    );
  });

  it(`round-trips v1alpha1 → v1beta1 → v1alpha1 keeping every field (${RUNS} generated Profiles)`, () => {
    let cases = 0;
    fc.assert(
      fc.property(v1alpha1Profile, (alpha) => {
        cases++;
        expect(convert(ProfileConversion, convert(ProfileConversion, alpha, V1BETA1), V1ALPHA1)).toEqual(alpha);
      }),
      { numRuns: RUNS },
    );
    console.log(`round trip v1alpha1 → v1beta1 → v1alpha1: ${cases} cases`);
  });

  it(`round-trips v1beta1 → v1alpha1 → v1beta1 keeping every field (${RUNS} generated Profiles)`, () => {
    let cases = 0;
    fc.assert(
      fc.property(v1beta1Profile, (beta) => {
        cases++;
        expect(convert(ProfileConversion, convert(ProfileConversion, beta, V1ALPHA1), V1BETA1)).toEqual(beta);
      }),
      { numRuns: RUNS },
    );
    console.log(`round trip v1beta1 → v1alpha1 → v1beta1: ${cases} cases`);
  });
});
