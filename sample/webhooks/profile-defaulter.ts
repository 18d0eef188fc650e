import { Webhook, type AdmissionContext, type CustomDefaulter } from 'shaper-gen';
import { GROUP, TIER_LABEL, VERSION } from '../api/group.js';
import { DEFAULT_TIER, PROFILE_TIERS, TIER_PRIORITY, type Profile } from '../api/profile.js';

/**
 * Fills in a Profile's tier, its priority from the tier, and the tier label.
 * Idempotent: a second pass over its own output changes nothing.
 */
@Webhook({
  path: '/mutate-profile',
  mutating: true,
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['profiles'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  // Fail: a Profile stored without defaults would break every consumer that expects a tier and a priority.
  failurePolicy: 'Fail',
  // Pure function of the object: no side effects, so dry-run requests are safe to send.
  sideEffects: 'None',
  // No I/O; a slow answer means the pod is in trouble, so fail fast instead of holding API requests.
  timeoutSeconds: 5,
  // Another mutating webhook may change spec.tier after us; run again so the label and priority follow.
  reinvocationPolicy: 'IfNeeded',
})
export class ProfileDefaulter implements CustomDefaulter<Profile> {
  default(profile: Profile, ctx: AdmissionContext): void {
    const spec = (profile.spec ??= {});
    spec.tier ??= DEFAULT_TIER;
    // An unknown tier is the validator's to reject; do not invent a priority or label for it.
    if (!PROFILE_TIERS.includes(spec.tier)) return;
    if (spec.priority === undefined) {
      spec.priority = TIER_PRIORITY[spec.tier];
      ctx.log.debug({ tier: spec.tier, priority: spec.priority }, 'priority defaulted from tier');
    }
    const metadata = (profile.metadata ??= {});
    if (metadata.labels?.[TIER_LABEL] !== spec.tier) metadata.labels = { ...metadata.labels, [TIER_LABEL]: spec.tier };
  }
}
