/** Turns scanned webhooks into the sorted, plain data the webhook configuration and RBAC templates render. */
import { mergeRbacRules, rbacRulesOf, type ResolvedWebhook } from 'shaper-gen/internal/generator';
import { helmHelpers, selectorModel, sourceOf } from '../chart/helm-helpers.js';
import { compareText } from '../compare-text.js';
import type { DecoratedWebhook } from './scan-webhook.js';

export const CONFIGURATION_KINDS = [
  { kind: 'MutatingWebhookConfiguration', mutating: true, fileName: 'mutating-webhook-configuration.yaml' },
  { kind: 'ValidatingWebhookConfiguration', mutating: false, fileName: 'validating-webhook-configuration.yaml' },
] as const;

export function configurationsModel(kind: (typeof CONFIGURATION_KINDS)[number], webhooks: readonly DecoratedWebhook[], chartName: string, root: string) {
  const byConfiguration = new Map<string, DecoratedWebhook[]>();
  for (const item of webhooks.filter((w) => w.webhook.mutating === kind.mutating)) {
    const key = item.webhook.configuration ?? '';
    byConfiguration.set(key, [...(byConfiguration.get(key) ?? []), item]);
  }
  const configurations = [...byConfiguration.keys()].sort(compareText).map((configuration) => ({
    nameSuffix: configuration ? `-${configuration}` : '',
    webhooks: byConfiguration
      .get(configuration)!
      .sort((a, b) => compareText(a.webhook.name, b.webhook.name))
      .map((item) => webhookModel(item, root)),
  }));
  return { kind: kind.kind, helpers: helmHelpers(chartName), configurations };
}

function webhookModel({ webhook, className, file }: DecoratedWebhook, root: string) {
  return {
    source: sourceOf(className, file, root),
    name: webhook.name,
    path: webhook.path,
    admissionReviewVersions: webhook.admissionReviewVersions,
    failurePolicy: webhook.failurePolicy,
    matchPolicy: webhook.matchPolicy,
    namespaceSelector: selectorModel(webhook.namespaceSelector),
    objectSelector: selectorModel(webhook.objectSelector),
    reinvocationPolicy: webhook.reinvocationPolicy ?? null,
    rules: webhook.rules,
    sideEffects: webhook.sideEffects,
    timeoutSeconds: webhook.timeoutSeconds,
    matchConditions: webhook.matchConditions?.length ? webhook.matchConditions : null,
  };
}

/** The chart's `_rbac-rules.tpl`: the access the webhooks declare in `rbac` or need for `cache`, merged. */
export function rbacRulesModel(webhooks: readonly ResolvedWebhook[], chartName: string) {
  return {
    helperName: helmHelpers(chartName).rbacRules,
    rules: mergeRbacRules(webhooks.flatMap(rbacRulesOf)).map((rule) => ({ ...rule, resourceNames: rule.resourceNames ?? null })),
  };
}
