/** What every generated chart template shares: the chart's helper names, source comments, and maps and selectors in a stable order. */
import path from 'node:path';
import type { LabelSelector } from 'shaper-gen/internal/generator';
import { compareText } from '../compare-text.js';
import { CHART_CONTRACT } from './chart-contract.js';

/** The chart's names the templates use, each from the chart contract. */
export function helmHelpers(chartName: string) {
  const [fullname, labels, caSource] = CHART_CONTRACT.helpers;
  return {
    fullname: `include "${chartName}.${fullname}" $`,
    labels: `include "${chartName}.${labels}" $`,
    caSource: `include "${chartName}.${caSource}" $`,
    webhookPaths: `${chartName}.webhookPaths`,
    conversionCrds: `${chartName}.conversionCrds`,
    rbacRules: `${chartName}.${CHART_CONTRACT.rbacHelper}`,
    policyEnforcement: `${chartName}.policyEnforcement`,
    servedPolicies: `${chartName}.${CHART_CONTRACT.servedPoliciesHelper}`,
    servingCertificateSuffix: CHART_CONTRACT.servingCertificateSuffix,
  };
}

/** The comment above a generated object: which class in which file declared it. */
export function sourceOf(className: string, file: string, root: string): string {
  return `${className} in ${toPosix(path.relative(root, file))}`;
}

/** Sorts object entries into `{ key, value }` pairs so maps render in a stable order. */
export function sortedEntries(record: Readonly<Record<string, string>> | undefined): { key: string; value: string }[] | null {
  if (!record || Object.keys(record).length === 0) return null;
  return Object.keys(record)
    .sort(compareText)
    .map((key) => ({ key, value: record[key]! }));
}

export function selectorModel(selector: LabelSelector | undefined) {
  const matchLabels = sortedEntries(selector?.matchLabels);
  const matchExpressions = selector?.matchExpressions?.length ? selector.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, values: e.values?.length ? e.values : null })) : null;
  return matchLabels || matchExpressions ? { matchLabels, matchExpressions } : null;
}

export function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}
