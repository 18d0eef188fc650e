/** Turns scanned webhooks into the sorted, plain data the templates render. */
import path from 'node:path';
import { type LabelSelector, mergeRbacRules, rbacRulesOf, type ResolvedWebhook } from 'shaper-gen/internal/generator';
import { CHART_CONTRACT } from './chart-contract.js';
import { compareText } from './compare-text.js';
import type { DecoratedPolicy } from './policy/scan-policy.js';
import type { DecoratedWebhook } from './scan.js';

export const CONFIGURATION_KINDS = [
  { kind: 'MutatingWebhookConfiguration', mutating: true, fileName: 'mutating-webhook-configuration.yaml' },
  { kind: 'ValidatingWebhookConfiguration', mutating: false, fileName: 'validating-webhook-configuration.yaml' },
] as const;

/** The chart's names the templates use, each from the chart contract. */
export function helmHelpers(chartName: string) {
  const [fullname, labels] = CHART_CONTRACT.helpers;
  return {
    fullname: `include "${chartName}.${fullname}" $`,
    labels: `include "${chartName}.${labels}" $`,
    webhookPaths: `${chartName}.webhookPaths`,
    rbacRules: `${chartName}.${CHART_CONTRACT.rbacHelper}`,
    servingCertificateSuffix: CHART_CONTRACT.servingCertificateSuffix,
  };
}

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
    source: `${className} in ${toPosix(path.relative(root, file))}`,
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

export const VALIDATING_POLICIES_FILE = 'validating-admission-policies.yaml';
export const MUTATING_POLICIES_FILE = 'mutating-admission-policies.yaml';

/** The policies of one kind (`validating` or `mutating`), sorted by name, as the policy templates read them. */
export function policiesModel(policies: readonly DecoratedPolicy[], kind: 'validating' | 'mutating', chartName: string, root: string) {
  const sorted = policies.filter(({ policy }) => 'mutations' in policy === (kind === 'mutating')).sort((a, b) => compareText(a.policy.name, b.policy.name));
  return {
    helpers: helmHelpers(chartName),
    policies: sorted.map(({ policy, className, file }) => ({
      ...policy,
      source: `${className} in ${toPosix(path.relative(root, file))}`,
      namespaceSelector: selectorModel(policy.namespaceSelector),
      objectSelector: selectorModel(policy.objectSelector),
      paramRef: policy.paramRef ? { ...policy.paramRef, selector: selectorModel(policy.paramRef.selector) } : null,
      paramKind: policy.paramKind ?? null,
    })),
  };
}

/** Sorts object entries into `{ key, value }` pairs so maps render in a stable order. */
export function sortedEntries(record: Readonly<Record<string, string>> | undefined): { key: string; value: string }[] | null {
  if (!record || Object.keys(record).length === 0) return null;
  return Object.keys(record)
    .sort(compareText)
    .map((key) => ({ key, value: record[key]! }));
}

function selectorModel(selector: LabelSelector | undefined) {
  const matchLabels = sortedEntries(selector?.matchLabels);
  const matchExpressions = selector?.matchExpressions?.length ? selector.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, values: e.values?.length ? e.values : null })) : null;
  return matchLabels || matchExpressions ? { matchLabels, matchExpressions } : null;
}

/** Every path the server must serve: the webhooks' and the conversions' (several kinds may share one). */
export function pathsModel(webhooks: readonly ResolvedWebhook[], chartName: string, conversionPaths: readonly string[] = []) {
  return {
    helperName: helmHelpers(chartName).webhookPaths,
    paths: [...new Set([...webhooks.map((w) => w.path), ...conversionPaths])].sort(compareText),
  };
}

export function rbacRulesModel(webhooks: readonly ResolvedWebhook[], chartName: string) {
  return {
    helperName: helmHelpers(chartName).rbacRules,
    rules: mergeRbacRules(webhooks.flatMap(rbacRulesOf)).map((rule) => ({ ...rule, resourceNames: rule.resourceNames ?? null })),
  };
}

/**
 * The handlers index module: one import per file naming all its classes, files
 * by specifier and classes by name, aliases for names two files share; the
 * webhook classes and the conversion classes in their own lists.
 */
export function handlersIndexModel(webhooks: readonly DecoratedClass[], indexFile: string, conversions: readonly DecoratedClass[] = []) {
  const classes = new Map<string, { className: string; file: string; list: 'handlers' | 'conversions' }>();
  for (const { className, file } of webhooks) classes.set(`${file}\0${className}`, { className, file, list: 'handlers' });
  for (const { className, file } of conversions) classes.set(`${file}\0${className}`, { className, file, list: 'conversions' });
  const sorted = [...classes.values()]
    .map((c) => ({ ...c, specifier: importSpecifier(indexFile, c.file) }))
    .sort((a, b) => compareText(a.specifier, b.specifier) || compareText(a.className, b.className));
  const used = new Map<string, number>();
  const imports = new Map<string, { specifier: string; names: { className: string; alias: string | null }[] }>();
  const lists = { handlers: [] as { localName: string }[], conversions: [] as { localName: string }[] };
  for (const c of sorted) {
    const count = (used.get(c.className) ?? 0) + 1;
    used.set(c.className, count);
    const alias = count > 1 ? `${c.className}_${count}` : null;
    const statement = imports.get(c.specifier) ?? { specifier: c.specifier, names: [] };
    statement.names.push({ className: c.className, alias });
    imports.set(c.specifier, statement);
    lists[c.list].push({ localName: alias ?? c.className });
  }
  return { imports: [...imports.values()], handlers: lists.handlers, conversions: lists.conversions.length > 0 ? lists.conversions : null };
}

interface DecoratedClass {
  readonly className: string;
  readonly file: string;
}

function importSpecifier(fromFile: string, toFile: string): string {
  const relative = toPosix(path.relative(path.dirname(fromFile), toFile))
    .replace(/\.(m?)ts$/, '.$1js')
    .replace(/\.tsx$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}
