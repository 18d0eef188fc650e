import { roundTrip } from '@shaper-gen/generator/testing';
import { describe, expect, it } from 'vitest';
import { ConversionFailure, convert } from 'shaper-gen/testing';
import type { Profile as ProfileV1alpha1 } from '../api/profile.js';
import type { Profile as ProfileV1beta1 } from '../api/v1beta1/profile.js';
import { ProfileConversion, SCHEDULING_ANNOTATION } from './profile-conversion.js';

const V1ALPHA1 = 'shaper.io/v1alpha1';
const V1BETA1 = 'shaper.io/v1beta1';

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

  it('round-trips every version through the other keeping every field, over Profiles generated from their CRD schemas', async () => {
    const runs = await roundTrip(ProfileConversion, { runs: 1000 });
    expect(runs).toEqual([
      { path: 'v1alpha1 → v1beta1 → v1alpha1', cases: 1000 },
      { path: 'v1beta1 → v1alpha1 → v1beta1', cases: 1000 },
    ]);
  }, 60_000);
});
