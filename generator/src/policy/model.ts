/** Turns scanned policies into the sorted, plain data the policy templates render. */
import { servedPolicyPath, servedPolicyWebhookName } from 'shaper-gen/internal/generator';
import { helmHelpers, selectorModel, sourceOf } from '../chart/helm-helpers.js';
import { compareText } from '../compare-text.js';
import type { DecoratedPolicy } from './scan-policy.js';

/** The policies of one kind (`validating` or `mutating`), sorted by name, as the policy templates read them. */
export function policiesModel(policies: readonly DecoratedPolicy[], kind: 'validating' | 'mutating', chartName: string, root: string) {
  return { helpers: helmHelpers(chartName), policies: sortedPolicies(policies, kind).map((decorated) => policyModel(decorated, root)) };
}

function sortedPolicies(policies: readonly DecoratedPolicy[], kind: 'validating' | 'mutating'): DecoratedPolicy[] {
  return policies.filter(({ policy }) => 'mutations' in policy === (kind === 'mutating')).sort((a, b) => compareText(a.policy.name, b.policy.name));
}

function policyModel({ policy, className, file }: DecoratedPolicy, root: string) {
  return {
    ...policy,
    source: sourceOf(className, file, root),
    namespaceSelector: selectorModel(policy.namespaceSelector),
    objectSelector: selectorModel(policy.objectSelector),
    paramRef: policy.paramRef ? { ...policy.paramRef, selector: selectorModel(policy.paramRef.selector) } : null,
    paramKind: policy.paramKind ?? null,
  };
}

/**
 * Every policy as the chart has `serve` enforce it where the API server does not: the objects it is given, and the
 * webhook entry (webhook-entry's fields) that stands in for the policy, named after it. The entry matches what the
 * policy's rules and selectors match; the engine in `serve` decides the rest (exclusions, the bindings' own
 * resources, matchConditions) exactly as the policy plugin does.
 */
export function servedPoliciesModel(policies: readonly DecoratedPolicy[], chartName: string, root: string) {
  const helpers = helmHelpers(chartName);
  return (['validating', 'mutating'] as const).flatMap((kind) =>
    sortedPolicies(policies, kind).map((decorated) => {
      const policy = policyModel(decorated, root);
      const mutating = kind === 'mutating';
      const path = servedPolicyPath(policy.name, mutating);
      return {
        ...policy,
        kind: mutating ? 'MutatingAdmissionPolicy' : 'ValidatingAdmissionPolicy',
        mutating,
        servedPath: path,
        objectsHelper: `${chartName}.servedPolicy.${policy.name}`,
        entry: {
          source: `${policy.source}, enforced by the server where the API server does not serve ${mutating ? 'MutatingAdmissionPolicy' : 'ValidatingAdmissionPolicy'}`,
          name: servedPolicyWebhookName(policy.name),
          path,
          helpers,
          admissionReviewVersions: ['v1', 'v1beta1'],
          failurePolicy: policy.failurePolicy,
          matchPolicy: policy.matchPolicy,
          namespaceSelector: policy.namespaceSelector,
          objectSelector: policy.objectSelector,
          reinvocationPolicy: 'reinvocationPolicy' in policy ? policy.reinvocationPolicy : null,
          rules: policy.rules,
          sideEffects: 'None',
          timeoutSeconds: SERVED_POLICY_TIMEOUT_SECONDS,
          matchConditions: null,
        },
      };
    }),
  );
}

/** How long the API server waits for `serve` to evaluate a policy it enforces. */
export const SERVED_POLICY_TIMEOUT_SECONDS = 10;

export type ServedPolicyModel = ReturnType<typeof servedPoliciesModel>[number];
