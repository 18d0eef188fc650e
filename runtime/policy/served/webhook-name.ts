/**
 * The name of the webhook entry that stands for a served policy: the policy's
 * own when it is a valid webhook name, so that the API server keys audit
 * annotations as for the policy; else the policy's name under
 * `policy.shaper-gen.io`. The chart's entry and `serve` both use this.
 */
import { isWebhookName } from '../../options/kubernetes-names.js';

export const SERVED_POLICY_NAME_SUFFIX = 'policy.shaper-gen.io';

export function servedPolicyWebhookName(policyName: string): string {
  return isWebhookName(policyName) ? policyName : `${policyName}.${SERVED_POLICY_NAME_SUFFIX}`;
}

/** The path `serve` answers a served policy at: `/validate-policy-<name>` or `/mutate-policy-<name>`. */
export function servedPolicyPath(policyName: string, mutating: boolean): string {
  return `/${mutating ? 'mutate' : 'validate'}-policy-${policyName}`;
}
