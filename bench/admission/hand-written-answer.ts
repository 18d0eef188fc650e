/**
 * The same work as the sample's Profile webhooks, written by hand with no
 * framework: on /mutate-profile the sample defaulter's defaults
 * (sample/webhooks/profile-defaulter.ts) with their patch operations built
 * directly; on /validate-profile the validator's checks
 * (sample/webhooks/profile-validator.ts) with the sample's own constants; any
 * other path allowed. hand-written-server.ts serves it on bare node:https;
 * request-path-steps.ts times it in process.
 */
import { TIER_LABEL } from '../../sample/api/group.js';
import { DEFAULT_TIER, MAX_DESCRIPTION_LENGTH, MAX_PRIORITY, MIN_PRIORITY, PROFILE_TIERS, TIER_PRIORITY, type ProfileSpec, type ProfileTier } from '../../sample/api/profile.js';
import { isNegativeQuantity, isQuantity } from '../../sample/api/quantity.js';

/** A Profile as JSON may carry it: any of its objects may be null. */
interface Profile {
  metadata?: { labels?: Record<string, string> | null } | null;
  spec?: ProfileSpec | null;
}
export interface Review {
  apiVersion: string;
  request: { uid: string; operation: string; object?: Profile | null; oldObject?: Profile | null };
}
interface Operation {
  op: 'add' | 'replace';
  path: string;
  value: unknown;
}
interface Cause {
  field: string;
  message: string;
}

const TIER_LABEL_PATH = `/metadata/labels/${TIER_LABEL.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** The defaulter's three defaults, each with its operation. */
function defaults(profile: Profile): Operation[] {
  const operations: Operation[] = [];
  const spec = profile.spec;
  if (spec === undefined || spec === null) {
    const defaulted = { tier: DEFAULT_TIER, priority: TIER_PRIORITY[DEFAULT_TIER] };
    operations.push({ op: spec === null ? 'replace' : 'add', path: '/spec', value: defaulted });
    return [...operations, ...tierLabel(profile, DEFAULT_TIER)];
  }
  if (spec.tier === undefined) operations.push({ op: 'add', path: '/spec/tier', value: (spec.tier = DEFAULT_TIER) });
  if (!PROFILE_TIERS.includes(spec.tier)) return operations;
  if (spec.priority === undefined) operations.push({ op: 'add', path: '/spec/priority', value: TIER_PRIORITY[spec.tier] });
  return [...operations, ...tierLabel(profile, spec.tier)];
}

function tierLabel(profile: Profile, tier: ProfileTier): Operation[] {
  const labels = profile.metadata?.labels;
  if (!profile.metadata) return [{ op: profile.metadata === null ? 'replace' : 'add', path: '/metadata', value: { labels: { [TIER_LABEL]: tier } } }];
  if (!labels) return [{ op: labels === null ? 'replace' : 'add', path: '/metadata/labels', value: { [TIER_LABEL]: tier } }];
  if (labels[TIER_LABEL] === tier) return [];
  return [{ op: TIER_LABEL in labels ? 'replace' : 'add', path: TIER_LABEL_PATH, value: tier }];
}

/** The validator's checks. */
function problems(profile: Profile | null | undefined, old: Profile | null | undefined, operation: string): Cause[] {
  const causes: Cause[] = [];
  const spec = profile?.spec;
  if (!spec) causes.push({ field: 'spec', message: 'Required value' });
  else {
    if (spec.tier !== undefined && !PROFILE_TIERS.includes(spec.tier)) causes.push({ field: 'spec.tier', message: 'Unsupported value' });
    const { priority } = spec;
    if (priority !== undefined && (!Number.isInteger(priority) || priority < MIN_PRIORITY || priority > MAX_PRIORITY)) causes.push({ field: 'spec.priority', message: 'Invalid value' });
    for (const resource of ['cpu', 'memory'] as const) {
      const quantity = spec.resources?.[resource];
      if (quantity !== undefined && (!isQuantity(quantity) || isNegativeQuantity(quantity))) causes.push({ field: `spec.resources.${resource}`, message: 'Invalid value' });
    }
    if (spec.description !== undefined && spec.description.length > MAX_DESCRIPTION_LENGTH) causes.push({ field: 'spec.description', message: 'Too long' });
  }
  const before = old?.spec?.tier;
  if (operation === 'UPDATE' && before !== undefined && spec?.tier !== before) causes.push({ field: 'spec.tier', message: 'field is immutable' });
  return causes;
}

/** The response to `review` at `path`: what the hand-written server sends inside its AdmissionReview. */
export function answer(path: string | undefined, review: Review): Record<string, unknown> {
  const { uid, operation, object, oldObject } = review.request;
  const writes = operation === 'CREATE' || operation === 'UPDATE';
  if (path === '/mutate-profile' && writes && object) {
    const operations = defaults(object);
    if (operations.length === 0) return { uid, allowed: true };
    return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') };
  }
  if (path === '/validate-profile' && writes) {
    const causes = problems(object, oldObject, operation);
    if (causes.length > 0) {
      const details = { causes: causes.map((cause) => ({ reason: 'FieldValueInvalid', message: cause.message, field: cause.field })) };
      return { uid, allowed: false, status: { metadata: {}, status: 'Failure', code: 422, reason: 'Invalid', message: 'Profile is invalid', details } };
    }
  }
  return { uid, allowed: true };
}
