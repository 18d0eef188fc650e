/**
 * The chart's models (webhook/model.ts, policy/model.ts) as static admission
 * files need them: every name with the static suffix, webhooks by URL, plain
 * YAML (`helm: false`: no Helm engine reads these files).
 */
import { configurationsModel, CONFIGURATION_KINDS } from '../webhook/model.js';
import { policiesModel } from '../policy/model.js';
import type { DecoratedPolicy } from '../policy/scan-policy.js';
import type { DecoratedWebhook } from '../webhook/scan-webhook.js';
import { staticName } from './names.js';
import type { StaticSettings } from './settings.js';

/** One directory per admission plugin: each plugin's staticManifestsDir loads its own kinds and refuses any other. */
export const STATIC_PLUGINS = {
  MutatingWebhookConfiguration: { plugin: 'MutatingAdmissionWebhook', directory: 'mutating-webhooks' },
  ValidatingWebhookConfiguration: { plugin: 'ValidatingAdmissionWebhook', directory: 'validating-webhooks' },
  MutatingAdmissionPolicy: { plugin: 'MutatingAdmissionPolicy', directory: 'mutating-policies' },
  ValidatingAdmissionPolicy: { plugin: 'ValidatingAdmissionPolicy', directory: 'validating-policies' },
} as const;

export type StaticKind = keyof typeof STATIC_PLUGINS;

export interface StaticObjectModel {
  readonly kind: StaticKind;
  readonly name: string;
  readonly model: object;
}

/** Each webhook configuration the chart would render, as one static object; `url` must be set when there are webhooks. */
export function staticWebhookModels(webhooks: readonly DecoratedWebhook[], settings: StaticSettings & { url: string }, chartName: string, root: string): StaticObjectModel[] {
  return CONFIGURATION_KINDS.flatMap((kind) => {
    const chart = configurationsModel(kind, webhooks, chartName, root);
    return chart.configurations.map((configuration) => {
      const name = staticName(`${chartName}${configuration.nameSuffix}`);
      return {
        kind: kind.kind,
        name,
        model: {
          helm: false,
          helpers: chart.helpers,
          kind: kind.kind,
          plugin: STATIC_PLUGINS[kind.kind].plugin,
          name,
          webhooks: configuration.webhooks.map((webhook) => ({ ...webhook, url: `${settings.url.replace(/\/+$/, '')}${webhook.path}`, caBundle: settings.caBundle ?? null })),
        },
      };
    });
  });
}

/** Each policy of one kind, with its binding, as static objects. */
export function staticPolicyModels(policies: readonly DecoratedPolicy[], kind: 'validating' | 'mutating', chartName: string, root: string): StaticObjectModel[] {
  const chart = policiesModel(policies, kind, chartName, root);
  return chart.policies.map((policy) => {
    const name = staticName(policy.name);
    return { kind: kind === 'mutating' ? 'MutatingAdmissionPolicy' : 'ValidatingAdmissionPolicy', name, model: { ...policy, helm: false, helpers: chart.helpers, name } };
  });
}
