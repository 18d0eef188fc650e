/** Turns scanned webhooks into the sorted, plain data the webhook configuration and RBAC templates render. */
import { mergeRbacRules, rbacRulesOf, type ResolvedWebhook } from 'shaper-gen/internal/generator';
import { MUTATING_WEBHOOK_CONFIGURATION_FILE, VALIDATING_WEBHOOK_CONFIGURATION_FILE } from '../chart/generated-templates.js';
import { helmHelpers, selectorModel, sourceOf } from '../chart/helm-helpers.js';
import { compareText } from '../compare-text.js';
import type { DecoratedWebhook } from './scan-webhook.js';
import type { ServedPolicyModel } from '../policy/model.js';

export const CONFIGURATION_KINDS = [
  { kind: 'MutatingWebhookConfiguration', mutating: true, fileName: MUTATING_WEBHOOK_CONFIGURATION_FILE },
  { kind: 'ValidatingWebhookConfiguration', mutating: false, fileName: VALIDATING_WEBHOOK_CONFIGURATION_FILE },
] as const;

/**
 * One object per configuration, each with its webhooks; the default configuration (no suffix) also holds the entries
 * that stand in for policies `serve` enforces, and exists for them alone when no webhook of the kind does: then
 * (`policiesOnly`) it is rendered only where some policy is served.
 */
export function configurationsModel(
  kind: (typeof CONFIGURATION_KINDS)[number],
  webhooks: readonly DecoratedWebhook[],
  chartName: string,
  root: string,
  servedPolicies: readonly ServedPolicyModel[] = [],
) {
  const byConfiguration = new Map<string, DecoratedWebhook[]>();
  for (const item of webhooks.filter((w) => w.webhook.mutating === kind.mutating)) {
    const key = item.webhook.configuration ?? '';
    byConfiguration.set(key, [...(byConfiguration.get(key) ?? []), item]);
  }
  const served = servedPolicies.filter((policy) => policy.mutating === kind.mutating);
  const policiesOnly = served.length > 0 && !byConfiguration.has('');
  if (policiesOnly) byConfiguration.set('', []);
  const configurations = [...byConfiguration.keys()].sort(compareText).map((configuration) => ({
    nameSuffix: configuration ? `-${configuration}` : '',
    webhooks: byConfiguration
      .get(configuration)!
      .sort((a, b) => compareText(a.webhook.name, b.webhook.name))
      .map((item) => webhookModel(item, root)),
    servedPolicies: configuration === '' ? served.map((policy) => ({ ...policy.entry, policyName: policy.name, kind: policy.kind })) : [],
    policiesOnly: configuration === '' && policiesOnly,
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
export function rbacRulesModel(webhooks: readonly ResolvedWebhook[], chartName: string, servedPolicies: readonly { name: string; kind: string; rules: readonly object[] }[] = []) {
  const helpers = helmHelpers(chartName);
  return {
    helpers,
    helperName: helpers.rbacRules,
    servedPolicies,
    rules: mergeRbacRules(webhooks.flatMap(rbacRulesOf)).map((rule) => ({ ...rule, resourceNames: rule.resourceNames ?? null })),
  };
}
