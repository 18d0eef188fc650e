import { describe, expect, it } from 'vitest';
import { runWebhook } from 'shaper-gen/testing';
import type { AdmissionContext } from 'shaper-gen';
import type { Assignment } from '../api/assignment.js';
import type { Profile } from '../api/profile.js';
import { AssignmentDefaulter } from './assignment-defaulter.js';
import { AssignmentValidator } from './assignment-validator.js';
import type { ProfileLookup } from './profile-lookup.js';

/** Profiles "in the cluster" for these tests, keyed namespace/name; records what was asked. */
class FakeProfiles implements ProfileLookup {
  readonly asked: string[] = [];
  constructor(private readonly existing: string[]) {}
  async get(namespace: string, name: string, _ctx: AdmissionContext): Promise<Profile | undefined> {
    this.asked.push(`${namespace}/${name}`);
    return this.existing.includes(`${namespace}/${name}`) ? { metadata: { name, namespace } } : undefined;
  }
}

const assignment = (spec: Assignment['spec'], labels?: Record<string, string>): Assignment => ({
  apiVersion: 'shaper.io/v1alpha1',
  kind: 'Assignment',
  metadata: { name: 'web', namespace: 'team-a', ...(labels && { labels }) },
  spec,
});
const valid = { profileRef: { name: 'fast' }, selector: { matchLabels: { app: 'web' } }, weight: 50 };
const validator = (existing = ['team-a/fast']) => new AssignmentValidator(new FakeProfiles(existing));

describe('/mutate-assignment', () => {
  it('defaults the weight to 50 and keeps a given one', async () => {
    expect((await runWebhook(AssignmentDefaulter, { object: assignment({ profileRef: { name: 'fast' } }) })).patched?.spec?.weight).toBe(50);
    expect((await runWebhook(AssignmentDefaulter, { object: assignment({ weight: 7 }) })).patch).toEqual([]);
  });
});

describe('/validate-assignment', () => {
  it('admits an assignment whose Profile exists in its namespace, looking it up there', async () => {
    const profiles = new FakeProfiles(['team-a/fast']);
    const decision = await runWebhook(new AssignmentValidator(profiles), { object: assignment(valid) });
    expect(decision).toMatchObject({ allowed: true, warnings: [] });
    expect(profiles.asked).toEqual(['team-a/fast']);
  });

  it('denies when the Profile does not exist, naming it', async () => {
    const decision = await runWebhook(validator(['team-b/fast']), { object: assignment(valid) });
    expect(decision).toMatchObject({ allowed: false, code: 422 });
    expect(decision.message).toBe('Assignment.shaper.io "web" is invalid: spec.profileRef.name: Not found: "fast": Profile "fast" does not exist in namespace "team-a"');
  });

  it('requires profileRef and a non-empty, valid selector, and a weight in range', async () => {
    const decision = await runWebhook(validator(), { object: assignment({ selector: {}, weight: 0 }) });
    expect(decision.causes.map((c) => [c.field, c.reason])).toEqual([
      ['spec.profileRef.name', 'FieldValueRequired'],
      ['spec.selector', 'FieldValueRequired'],
      ['spec.weight', 'FieldValueInvalid'],
    ]);
    const badSelector = await runWebhook(validator(), {
      object: assignment({ ...valid, selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: [] }] } }),
    });
    expect(badSelector.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.selector.matchExpressions[0].values', message: 'Invalid value: operator In needs a non-empty values list' },
    ]);
  });

  it('does not look up the Profile when the spec is already invalid', async () => {
    const profiles = new FakeProfiles([]);
    await runWebhook(new AssignmentValidator(profiles), { object: assignment({ profileRef: { name: 'x' } }) });
    expect(profiles.asked).toEqual([]);
  });

  it('forbids changing profileRef on update', async () => {
    const decision = await runWebhook(validator(), { oldObject: assignment(valid), object: assignment({ ...valid, profileRef: { name: 'slow' } }) });
    expect(decision.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.profileRef.name', message: 'Invalid value: "slow": field is immutable (was "fast"); create a new Assignment instead' },
    ]);
    expect((await runWebhook(validator(), { oldObject: assignment(valid), object: assignment({ ...valid, weight: 60 }) })).allowed).toBe(true);
  });

  it('denies DELETE while labelled shaper.io/protected=true', async () => {
    const protectedOne = await runWebhook(validator(), { operation: 'DELETE', oldObject: assignment(valid, { 'shaper.io/protected': 'true' }) });
    expect(protectedOne).toMatchObject({ allowed: false, code: 403, message: 'Assignment "web" is protected: remove the shaper.io/protected label before deleting it' });
    expect((await runWebhook(validator(), { operation: 'DELETE', oldObject: assignment(valid, { 'shaper.io/protected': 'false' }) })).allowed).toBe(true);
  });

  it('warns at the extremes of weight', async () => {
    expect((await runWebhook(validator(), { object: assignment({ ...valid, weight: 100 }) })).warnings).toEqual([
      'spec.weight is 100, the maximum: this profile overrides every other assignment',
    ]);
    expect((await runWebhook(validator(), { object: assignment({ ...valid, weight: 1 }) })).warnings[0]).toMatch(/minimum/);
  });

  it('fails closed (500) when the lookup itself fails, instead of guessing', async () => {
    const broken: ProfileLookup = { get: () => Promise.reject(new Error('connection refused')) };
    const decision = await runWebhook(new AssignmentValidator(broken), { object: assignment(valid) });
    expect(decision).toMatchObject({ allowed: false, code: 500 });
    expect(decision.message).toMatch(/validate-assignment.*connection refused/);
  });
});
