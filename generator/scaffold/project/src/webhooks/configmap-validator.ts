import type { V1ConfigMap } from '@kubernetes/client-node';
import { Invalid, Webhook, field, type CustomValidator } from 'shaper-gen';

/** ConfigMaps that opt in with the label must name their owning team. */
export const OPT_IN_LABEL = 'webhooks.example.com/validate';
export const OWNER_ANNOTATION = 'example.com/owner';

@Webhook({
  path: '/validate-configmap',
  mutating: false,
  rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  // Only objects that opt in reach the webhook: the rest of the cluster never waits for it.
  objectSelector: { matchLabels: { [OPT_IN_LABEL]: 'true' } },
  failurePolicy: 'Fail',
  sideEffects: 'None',
  timeoutSeconds: 5,
})
export class ConfigMapValidator implements CustomValidator<V1ConfigMap> {
  validateCreate(configMap: V1ConfigMap): void {
    this.check(configMap);
  }

  validateUpdate(_old: V1ConfigMap, configMap: V1ConfigMap): void {
    this.check(configMap);
  }

  private check(configMap: V1ConfigMap): void {
    if (!configMap.metadata?.annotations?.[OWNER_ANNOTATION]) {
      throw Invalid(field.required(`metadata.annotations[${OWNER_ANNOTATION}]`, 'name the team that owns this ConfigMap'));
    }
  }
}
