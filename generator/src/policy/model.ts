/** Turns scanned policies into the sorted, plain data the policy templates render. */
import { helmHelpers, selectorModel, sourceOf } from '../chart/helm-helpers.js';
import { compareText } from '../compare-text.js';
import type { DecoratedPolicy } from './scan-policy.js';

export const VALIDATING_POLICIES_FILE = 'validating-admission-policies.yaml';
export const MUTATING_POLICIES_FILE = 'mutating-admission-policies.yaml';

/** The policies of one kind (`validating` or `mutating`), sorted by name, as the policy templates read them. */
export function policiesModel(policies: readonly DecoratedPolicy[], kind: 'validating' | 'mutating', chartName: string, root: string) {
  const sorted = policies.filter(({ policy }) => 'mutations' in policy === (kind === 'mutating')).sort((a, b) => compareText(a.policy.name, b.policy.name));
  return {
    helpers: helmHelpers(chartName),
    policies: sorted.map(({ policy, className, file }) => ({
      ...policy,
      source: sourceOf(className, file, root),
      namespaceSelector: selectorModel(policy.namespaceSelector),
      objectSelector: selectorModel(policy.objectSelector),
      paramRef: policy.paramRef ? { ...policy.paramRef, selector: selectorModel(policy.paramRef.selector) } : null,
      paramKind: policy.paramKind ?? null,
    })),
  };
}
