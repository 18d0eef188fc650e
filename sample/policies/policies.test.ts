import { describe, expect, it } from 'vitest';
import { runPolicy } from 'shaper-gen/testing';
import type { Assignment } from '../api/assignment.js';
import type { Profile } from '../api/profile.js';
import { AssignmentProfileLabelPolicy } from './assignment-profile-label-policy.js';
import { ProfileDescriptionPolicy } from './profile-description-policy.js';
import { ProfileTierPolicy } from './profile-tier-policy.js';
import { TierLabelPolicy } from './tier-label-policy.js';

const profile = (spec: Profile['spec']): Profile => ({ apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'team-a' }, spec });

describe('ProfileTierPolicy', () => {
  it('refuses a gold Profile below priority 500, as the API server words it', async () => {
    const decision = await runPolicy(ProfileTierPolicy, { object: profile({ tier: 'gold', priority: 100 }) });
    expect(decision).toEqual({
      matched: true,
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message:
        "profiles.shaper.io \"p\" is forbidden: ValidatingAdmissionPolicy 'profile-tier-policy.shaper.io' with binding 'profile-tier-policy.shaper.io' denied request: a gold Profile needs priority 500 or more, got 100",
      warnings: [],
      auditAnnotations: { 'profile-tier-policy.shaper.io/tier': 'gold' },
    });
  });

  it('allows a gold Profile at 900 and a bronze one without a priority', async () => {
    expect((await runPolicy(ProfileTierPolicy, { object: profile({ tier: 'gold', priority: 900 }) })).allowed).toBe(true);
    expect((await runPolicy(ProfileTierPolicy, { object: profile({ tier: 'bronze' }) })).allowed).toBe(true);
  });

  it('refuses a change of tier', async () => {
    const decision = await runPolicy(ProfileTierPolicy, { oldObject: profile({ tier: 'silver' }), object: profile({ tier: 'gold', priority: 900 }) });
    expect([decision.allowed, decision.code, decision.message?.endsWith('denied request: spec.tier is immutable once set')]).toEqual([false, 422, true]);
  });

  it('does not apply to DELETE', async () => {
    const decision = await runPolicy(ProfileTierPolicy, { operation: 'DELETE', oldObject: profile({ tier: 'gold' }) });
    expect(decision).toEqual({ matched: false, why: 'no rule matches the request', allowed: true, code: 200, warnings: [], auditAnnotations: {} });
  });
});

describe('ProfileDescriptionPolicy', () => {
  it('warns, and allows, when a Profile has no description', async () => {
    const decision = await runPolicy(ProfileDescriptionPolicy, { object: profile({ tier: 'bronze' }) });
    expect(decision).toEqual({
      matched: true,
      allowed: true,
      code: 200,
      warnings: [
        "Validation failed for ValidatingAdmissionPolicy 'profile-description-policy.shaper.io' with binding 'profile-description-policy.shaper.io': a Profile should say what it is for in spec.description",
      ],
      auditAnnotations: {},
    });
  });

  it('denies instead when the binding says Deny (as a chart value can)', async () => {
    const decision = await runPolicy(ProfileDescriptionPolicy, { object: profile({ tier: 'bronze' }), validationActions: ['Deny'] });
    expect([decision.allowed, decision.warnings]).toEqual([false, []]);
  });
});

describe('TierLabelPolicy', () => {
  const deployment = (labels: Record<string, string>) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a', labels }, spec: {} });

  it('refuses a Deployment whose tier label names no tier', async () => {
    const decision = await runPolicy(TierLabelPolicy, { object: deployment({ 'shaper.io/tier': 'platinum' }) });
    expect(decision.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'tier-label-policy' with binding 'tier-label-policy' denied request: label shaper.io/tier must be one of bronze, silver, gold, got platinum",
    );
  });

  it('leaves workloads without the label alone', async () => {
    expect(await runPolicy(TierLabelPolicy, { object: deployment({ app: 'web' }) })).toEqual({
      matched: false,
      why: 'the objectSelector does not select the object',
      allowed: true,
      code: 200,
      warnings: [],
      auditAnnotations: {},
    });
  });
});

describe('AssignmentProfileLabelPolicy', () => {
  const assignment = (spec: Assignment['spec'], labels?: Record<string, string>): Assignment => ({
    apiVersion: 'shaper.io/v1alpha1',
    kind: 'Assignment',
    metadata: { name: 'a', namespace: 'team-a', ...(labels && { labels }) },
    spec,
  });

  it('labels an Assignment with the Profile it refers to, keeping its other labels', async () => {
    const decision = await runPolicy(AssignmentProfileLabelPolicy, { object: assignment({ profileRef: { name: 'gold' }, weight: 10 }, { team: 'web' }) });
    expect(decision).toEqual({
      matched: true,
      allowed: true,
      code: 200,
      warnings: [],
      auditAnnotations: {},
      object: assignment({ profileRef: { name: 'gold' }, weight: 10 }, { team: 'web', 'shaper.io/profile': 'gold' }),
    });
  });

  it('follows a change of Profile on UPDATE', async () => {
    const decision = await runPolicy(AssignmentProfileLabelPolicy, {
      oldObject: assignment({ profileRef: { name: 'gold' } }, { 'shaper.io/profile': 'gold' }),
      object: assignment({ profileRef: { name: 'silver' } }, { 'shaper.io/profile': 'gold' }),
    });
    expect(decision.object).toEqual(assignment({ profileRef: { name: 'silver' } }, { 'shaper.io/profile': 'silver' }));
  });

  it('leaves an Assignment without a Profile as it is', async () => {
    const decision = await runPolicy(AssignmentProfileLabelPolicy, { object: assignment({ weight: 10 }) });
    expect(decision).toEqual({
      matched: false,
      why: 'matchCondition "names-a-profile" is false',
      allowed: true,
      code: 200,
      warnings: [],
      auditAnnotations: {},
      object: assignment({ weight: 10 }),
    });
  });
});
