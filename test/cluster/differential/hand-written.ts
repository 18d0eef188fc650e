/**
 * The webhook configurations a user would write by hand from the same options,
 * for the cases the generator refuses: every option copied to the field of the
 * same meaning (groups → apiGroups, versions → apiVersions, path → the Service
 * path), unknown keys copied as written, nothing checked or corrected. Only the
 * two fields admissionregistration/v1 requires and has no default for take the
 * generator's defaults (sideEffects None, admissionReviewVersions [v1]), as
 * does an omitted name, so that the API server judges the options and not the
 * mapping.
 */
import { SERVER_ONLY_OPTION_NAMES } from '../../../runtime/webhook/options/fields.js';
import { defaultWebhookName } from '../../../runtime/webhook/options/resolve.js';
import type { K8sObject } from '../../support/helm.js';
import type { Case, Options } from './corpus.js';
import { FULLNAME } from './generate.js';

export function handWrittenConfigurations(testCase: Case): K8sObject[] {
  const objects = new Map<string, K8sObject>();
  for (const options of testCase.webhooks) {
    const kind = options.mutating === true ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
    const name = options.configuration === undefined ? FULLNAME : `${FULLNAME}-${options.configuration as string}`;
    const key = `${kind}/${name}`;
    if (!objects.has(key)) objects.set(key, { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks: [] });
    objects.get(key)!.webhooks.push(handWrittenWebhook(options));
  }
  return [...objects.values()];
}

function handWrittenWebhook(options: Options): Record<string, unknown> {
  const { path, mutating: _mutating, name, configuration: _configuration, rules, sideEffects, admissionReviewVersions, ...others } = options;
  const rest = Object.fromEntries(Object.entries(others).filter(([key]) => !(SERVER_ONLY_OPTION_NAMES as readonly string[]).includes(key)));
  return {
    name: name ?? (typeof path === 'string' ? defaultWebhookName(path, Array.isArray(rules) ? rules.filter(hasGroups) : []) : undefined),
    clientConfig: { service: { name: FULLNAME, namespace: 'shaper-system', path, port: 443 } },
    sideEffects: sideEffects ?? 'None',
    admissionReviewVersions: admissionReviewVersions ?? ['v1'],
    ...(rules !== undefined && { rules: Array.isArray(rules) ? rules.map(handWrittenRule) : rules }),
    ...rest,
  };
}

function handWrittenRule(rule: unknown): unknown {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return rule;
  const { groups, versions, ...rest } = rule as Options;
  return { apiGroups: groups, apiVersions: versions, ...rest };
}

function hasGroups(rule: unknown): rule is { groups: string[] } {
  const groups = (rule as { groups?: unknown } | null)?.groups;
  return Array.isArray(groups) && groups.every((group) => typeof group === 'string');
}
