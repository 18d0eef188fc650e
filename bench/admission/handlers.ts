/**
 * The webhooks the admission benchmark serves, compiled by bench/tsconfig.json:
 * the sample's Profile defaulter as it is, the sample's Assignment validator
 * with its Profile lookup answered from memory (no API server here: this
 * measures the framework and the handler's own work, not a network call),
 * and an allow-all validator for the framework's fixed cost.
 */
import { Webhook, type AdmissionContext } from 'shaper-gen';
import type { Profile } from '../../sample/api/profile.js';
import { AssignmentValidator } from '../../sample/webhooks/assignment-validator.js';
import { ProfileDefaulter } from '../../sample/webhooks/profile-defaulter.js';
import type { ProfileLookup } from '../../sample/webhooks/profile-lookup.js';

const rules = [{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['assignments'], operations: ['CREATE', 'UPDATE', 'DELETE'] }] as const;

class InMemoryProfiles implements ProfileLookup {
  private readonly profiles = new Map<string, Profile>([['team-a/gold', { metadata: { name: 'gold', namespace: 'team-a' }, spec: { tier: 'gold' } }]]);
  async get(namespace: string, name: string, _ctx: AdmissionContext): Promise<Profile | undefined> {
    return this.profiles.get(`${namespace}/${name}`);
  }
}

@Webhook({ path: '/validate-assignment', mutating: false, rules })
export class InMemoryAssignmentValidator extends AssignmentValidator {
  constructor() {
    super(new InMemoryProfiles());
  }
}

@Webhook({ path: '/validate-allow-all', mutating: false, rules })
export class AllowAll {
  validateCreate(): void {}
}

export const webhooks = [InMemoryAssignmentValidator, ProfileDefaulter, AllowAll];
