import { describe, expect, it } from 'vitest';
import { runWebhook } from 'shaper-gen/testing';
import type { Assignment } from '../api/assignment.js';
import type { Profile } from '../api/profile.js';
import { AssignmentDefaulter } from './assignment-defaulter.js';
import { AssignmentValidator } from './assignment-validator.js';

/** Profiles "in the cluster" (in the server's cache) for these tests, as namespace/name. */
const profiles = (...existing: string[]): { objects: { 'profiles.shaper.io': Profile[] } } => ({
  objects: {
    'profiles.shaper.io': existing.map((key) => {
      const [namespace, name] = key.split('/');
      return { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name, namespace } };
    }),
  },
});

const assignment = (spec: Assignment['spec'], labels?: Record<string, string>): Assignment => ({
  apiVersion: 'shaper.io/v1alpha1',
  kind: 'Assignment',
  metadata: { name: 'web', namespace: 'team-a', ...(labels && { labels }) },
  spec,
});
const valid = { profileRef: { name: 'fast' }, selector: { matchLabels: { app: 'web' } }, weight: 50 };
const withFast = profiles('team-a/fast');

describe('/mutate-assignment', () => {
  it('defaults the weight to 50 and keeps a given one', async () => {
    expect((await runWebhook(AssignmentDefaulter, { object: assignment({ profileRef: { name: 'fast' } }) })).patched?.spec?.weight).toBe(50);
    expect((await runWebhook(AssignmentDefaulter, { object: assignment({ weight: 7 }) })).patch).toEqual([]);
  });
});

describe('/validate-assignment', () => {
  it('admits an assignment whose Profile exists in its namespace, looking it up there', async () => {
    const decision = await runWebhook(AssignmentValidator, { object: assignment(valid) }, withFast);
    expect(decision).toMatchObject({ allowed: true, warnings: [] });
  });

  it('denies when the Profile does not exist, naming it', async () => {
    const decision = await runWebhook(AssignmentValidator, { object: assignment(valid) }, profiles('team-b/fast'));
    expect(decision).toMatchObject({ allowed: false, code: 422 });
    expect(decision.message).toBe('Assignment.shaper.io "web" is invalid: spec.profileRef.name: Not found: "fast": Profile "fast" does not exist in namespace "team-a"');
  });

  it('requires profileRef and a non-empty, valid selector, and a weight in range', async () => {
    const decision = await runWebhook(AssignmentValidator, { object: assignment({ selector: {}, weight: 0 }) });
    expect(decision.causes.map((c) => [c.field, c.reason])).toEqual([
      ['spec.profileRef.name', 'FieldValueRequired'],
      ['spec.selector', 'FieldValueRequired'],
      ['spec.weight', 'FieldValueInvalid'],
    ]);
    const badSelector = await runWebhook(AssignmentValidator, {
      object: assignment({ ...valid, selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: [] }] } }),
    });
    expect(badSelector.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.selector.matchExpressions[0].values', message: 'Invalid value: operator In needs a non-empty values list' }]);
  });

  it('does not look up the Profile when the spec is already invalid', async () => {
    const unreachable = { objects: { 'profiles.shaper.io': new Error('connection refused') } };
    const decision = await runWebhook(AssignmentValidator, { object: assignment({ profileRef: { name: 'x' } }) }, unreachable);
    expect([decision.code, decision.causes.map((c) => c.field)]).toEqual([422, ['spec.selector']]);
  });

  it('forbids changing profileRef on update', async () => {
    const decision = await runWebhook(AssignmentValidator, { oldObject: assignment(valid), object: assignment({ ...valid, profileRef: { name: 'slow' } }) });
    expect(decision.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.profileRef.name', message: 'Invalid value: "slow": field is immutable (was "fast"); create a new Assignment instead' },
    ]);
    expect((await runWebhook(AssignmentValidator, { oldObject: assignment(valid), object: assignment({ ...valid, weight: 60 }) })).allowed).toBe(true);
  });

  it('denies DELETE while labelled shaper.io/protected=true', async () => {
    const protectedOne = await runWebhook(AssignmentValidator, { operation: 'DELETE', oldObject: assignment(valid, { 'shaper.io/protected': 'true' }) });
    expect(protectedOne).toMatchObject({ allowed: false, code: 403, message: 'Assignment "web" is protected: remove the shaper.io/protected label before deleting it' });
    expect((await runWebhook(AssignmentValidator, { operation: 'DELETE', oldObject: assignment(valid, { 'shaper.io/protected': 'false' }) })).allowed).toBe(true);
  });

  it('warns at the extremes of weight', async () => {
    expect((await runWebhook(AssignmentValidator, { object: assignment({ ...valid, weight: 100 }) }, withFast)).warnings).toEqual([
      'spec.weight is 100, the maximum: this profile overrides every other assignment',
    ]);
    expect((await runWebhook(AssignmentValidator, { object: assignment({ ...valid, weight: 1 }) }, withFast)).warnings[0]).toMatch(/minimum/);
  });

  it('fails closed (500) when the lookup itself fails, instead of guessing', async () => {
    const decision = await runWebhook(AssignmentValidator, { object: assignment(valid) }, { objects: { 'profiles.shaper.io': new Error('connection refused') } });
    expect(decision).toMatchObject({ allowed: false, code: 500 });
    expect(decision.message).toMatch(/validate-assignment.*connection refused/);
  });
});
