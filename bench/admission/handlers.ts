/**
 * The webhooks the admission benchmark serves, compiled by bench/tsconfig.build.json:
 * the sample's Profile defaulter as it is, the sample's Assignment validator
 * with its Profile lookup answered from memory (no API server here: this
 * measures the framework and the handler's own work, not a network call),
 * the sample's Profile validator as it is, and an allow-all validator for the
 * framework's fixed cost.
 */
import { Webhook } from 'shaper-gen';
import type { Profile } from '../../sample/api/profile.js';
import { AssignmentValidator } from '../../sample/webhooks/assignment-validator.js';
import { ProfileDefaulter } from '../../sample/webhooks/profile-defaulter.js';
import { ProfileValidator } from '../../sample/webhooks/profile-validator.js';

const rules = [{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['assignments'], operations: ['CREATE', 'UPDATE', 'DELETE'] }] as const;
const profiles = new Map<string, Profile>([['team-a/gold', { metadata: { name: 'gold', namespace: 'team-a' }, spec: { tier: 'gold' } }]]);

@Webhook({ path: '/validate-assignment', mutating: false, rules })
export class InMemoryAssignmentValidator extends AssignmentValidator {
  protected override async findProfile(namespace: string, name: string): Promise<Profile | undefined> {
    return profiles.get(`${namespace}/${name}`);
  }
}

@Webhook({ path: '/validate-allow-all', mutating: false, rules })
export class AllowAll {
  validateCreate(): void {}
}

export const webhooks = [InMemoryAssignmentValidator, ProfileDefaulter, ProfileValidator, AllowAll];
