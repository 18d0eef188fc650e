import { describe, expect, it } from 'vitest';
import { runWebhook } from 'shaper-gen/testing';
import type { Profile } from '../api/profile.js';
import { ProfileDefaulter } from './profile-defaulter.js';
import { ProfileValidator } from './profile-validator.js';

const profile = (spec: Profile['spec'], labels?: Record<string, string>): Profile => ({
  apiVersion: 'shaper.io/v1alpha1',
  kind: 'Profile',
  metadata: { name: 'fast', namespace: 'team-a', ...(labels && { labels }) },
  spec,
});

describe('/mutate-profile', () => {
  it('defaults tier, priority from the tier, and the tier label', async () => {
    const decision = await runWebhook(ProfileDefaulter, { object: profile({}) });
    expect(decision.allowed).toBe(true);
    expect(decision.patched?.spec).toEqual({ tier: 'bronze', priority: 100 });
    expect(decision.patched?.metadata?.labels).toEqual({ 'shaper.io/tier': 'bronze' });
  });

  it('derives priority from a given tier and keeps an explicit priority', async () => {
    expect((await runWebhook(ProfileDefaulter, { object: profile({ tier: 'gold' }) })).patched?.spec?.priority).toBe(900);
    expect((await runWebhook(ProfileDefaulter, { object: profile({ tier: 'silver', priority: 7 }) })).patched?.spec?.priority).toBe(7);
  });

  it('is idempotent: its own output needs no patch', async () => {
    const first = await runWebhook(ProfileDefaulter, { object: profile({ tier: 'silver' }, { team: 'a' }) });
    const second = await runWebhook(ProfileDefaulter, { object: first.patched! });
    expect(second.patch).toEqual([]);
    expect(second.response.patch).toBeUndefined();
  });

  it('fixes a label that disagrees with the tier', async () => {
    const decision = await runWebhook(ProfileDefaulter, { object: profile({ tier: 'gold', priority: 1 }, { 'shaper.io/tier': 'bronze' }) });
    expect(decision.patch).toEqual([{ op: 'replace', path: '/metadata/labels/shaper.io~1tier', value: 'gold' }]);
  });

  it('leaves an unknown tier for the validator to reject', async () => {
    const decision = await runWebhook(ProfileDefaulter, { object: profile({ tier: 'platinum' as never }) });
    expect(decision.patch).toEqual([]);
  });
});

describe('/validate-profile', () => {
  it('admits a complete profile', async () => {
    const decision = await runWebhook(ProfileValidator, { object: profile({ tier: 'gold', priority: 1000, resources: { cpu: '500m', memory: '1Gi' } }) });
    expect(decision).toMatchObject({ allowed: true, code: 200, warnings: [] });
  });

  it('rejects out-of-range priority, unknown tier, malformed and negative quantities, all at once', async () => {
    const decision = await runWebhook(ProfileValidator, {
      object: profile({ tier: 'platinum' as never, priority: 1001, resources: { cpu: 'lots', memory: '-1Gi' }, description: 'x'.repeat(300) }),
    });
    expect(decision).toMatchObject({ allowed: false, code: 422, reason: 'Invalid' });
    expect(decision.causes.map((cause) => cause.field)).toEqual(['spec.tier', 'spec.priority', 'spec.resources.cpu', 'spec.resources.memory', 'spec.description']);
    expect(decision.message).toBe(
      'Profile.shaper.io "fast" is invalid: [spec.tier: Unsupported value: "platinum": supported values: "bronze", "silver", "gold", ' +
        'spec.priority: Invalid value: 1001: must be a whole number from 0 to 1000, ' +
        'spec.resources.cpu: Invalid value: "lots": must be a quantity like "500m", "2" or "1Gi", ' +
        'spec.resources.memory: Invalid value: "-1Gi": must not be negative, ' +
        'spec.description: Too long: may not be longer than 256 characters]',
    );
  });

  it('accepts every quantity form Kubernetes does', async () => {
    for (const cpu of ['1', '0.5', '.5', '250m', '2e3', '1E-2', 3]) {
      expect((await runWebhook(ProfileValidator, { object: profile({ resources: { cpu } }) })).allowed, String(cpu)).toBe(true);
    }
  });

  it('forbids changing the tier on update, with the field as the cause', async () => {
    const decision = await runWebhook(ProfileValidator, { oldObject: profile({ tier: 'bronze' }), object: profile({ tier: 'gold' }) });
    expect(decision.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.tier', message: 'Invalid value: "gold": field is immutable (was "bronze"); create a new Profile instead' }]);
    expect((await runWebhook(ProfileValidator, { oldObject: profile({ tier: 'gold' }), object: profile({ tier: 'gold', priority: 5 }) })).allowed).toBe(true);
  });
});
