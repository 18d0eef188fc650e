/**
 * `@ValidatingPolicy` and `@MutatingPolicy` classes as the YAML the chart
 * installs by default: the policy templates `manifests` writes the chart
 * with, rendered with their Helm actions evaluated as the chart's defaults
 * evaluate them (one source of truth for the objects a class becomes).
 */
import { mutatingPolicyOf, validatingPolicyOf } from 'shaper-gen/internal/generator';
import { loadTemplates } from '../../chart/render.js';
import { policiesModel } from '../model.js';
import type { DecoratedPolicy } from '../scan-policy.js';

/** The chart's name in the rendered labels' helper: plain rendering leaves the labels out. */
const CHART = 'shaper-webhooks';

export function isPolicyClass(source: unknown): source is abstract new (...args: never[]) => unknown {
  return typeof source === 'function';
}

/** The classes' policies and bindings as multi-document YAML. */
export async function decoratedPolicyYaml(classes: readonly (abstract new (...args: never[]) => unknown)[]): Promise<string> {
  const decorated: DecoratedPolicy[] = classes.map((policyClass) => {
    const policy = validatingPolicyOf(policyClass) ?? mutatingPolicyOf(policyClass);
    if (!policy) throw new TypeError(`admit: ${policyClass.name} is not decorated with @ValidatingPolicy or @MutatingPolicy`);
    return { className: policyClass.name, file: '', policy, warnings: [] };
  });
  const templates = await loadTemplates(undefined, 'plain');
  return [templates.validatingPolicies(policiesModel(decorated, 'validating', CHART, '')), templates.mutatingPolicies(policiesModel(decorated, 'mutating', CHART, ''))].join('\n---\n');
}
