import type { V1Deployment } from '@kubernetes/client-node';
import { Webhook, type CustomDefaulter } from 'shaper-gen';

/** Deployments that opt in with the label get a bounded revision history. */
export const OPT_IN_LABEL = 'webhooks.example.com/defaults';
export const DEFAULT_REVISION_HISTORY_LIMIT = 3;

@Webhook({
  path: '/mutate-deployment',
  mutating: true,
  rules: [{ groups: ['apps'], versions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  objectSelector: { matchLabels: { [OPT_IN_LABEL]: 'true' } },
  // Ignore: a missing default is better than blocking every rollout while the webhook is down.
  failurePolicy: 'Ignore',
  sideEffects: 'None',
  timeoutSeconds: 5,
})
export class DeploymentDefaulter implements CustomDefaulter<V1Deployment> {
  default(deployment: V1Deployment): void {
    // Idempotent, as the API server may call it again: only fills in what is unset.
    if (deployment.spec && deployment.spec.revisionHistoryLimit === undefined) {
      deployment.spec.revisionHistoryLimit = DEFAULT_REVISION_HISTORY_LIMIT;
    }
  }
}
