import type { V1Deployment } from '@kubernetes/client-node';
import { Webhook, type CustomDefaulter } from 'shaper-gen';

/** Deployments that opt in with the label get resource requests on containers that set none. */
export const OPT_IN_LABEL = 'webhooks.example.com/defaults';
export const DEFAULT_REQUESTS = { cpu: '50m', memory: '64Mi' };

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
    // The API server applies its own defaults (replicas, revisionHistoryLimit, …) before
    // calling mutating webhooks; this fills in only what it leaves unset, so a second call changes nothing.
    for (const container of deployment.spec?.template.spec?.containers ?? []) {
      container.resources ??= {};
      container.resources.requests ??= { ...DEFAULT_REQUESTS };
    }
  }
}
