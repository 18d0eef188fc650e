/**
 * A ValidatingAdmissionPolicy with a ConfigMap paramKind and two bindings —
 * one naming its param (missing: Deny), one selecting several (none: Allow,
 * each param evaluated, Warn) — and the ConfigMaps it judges, in namespaces
 * that have the params or lack them: what the server must read from its
 * object cache to enforce a policy the way the API server's param informer
 * does.
 */
import type { Obj, PolicyCase } from './cases.js';
import { servedEntry } from './served-entry.js';

export const PARAM_POLICY_NAME = 'param-limit.served.shaper-gen.io';
const CONFIGMAP = { kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' } };
const CASE_LABEL = 'param-case';

/** Each namespace, labelled for the binding that covers it. */
export const PARAM_NAMESPACES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'sp-named': { params: 'named' },
  'sp-named-missing': { params: 'named' },
  'sp-selected': { params: 'selected' },
  'sp-selected-none': { params: 'selected' },
};

const configMap = (namespace: string, name: string, data: Record<string, string>, labels: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
  data,
});

/** The params: one named `limits`, two selected by `role: limit`. */
export function paramConfigMaps(): Obj[] {
  return [
    configMap('sp-named', 'limits', { maxKeys: '2' }),
    configMap('sp-selected', 'small', { maxKeys: '1' }, { role: 'limit' }),
    configMap('sp-selected', 'large', { maxKeys: '3' }, { role: 'limit' }),
  ];
}

export function paramPolicyObjects(): Obj[] {
  const meta = (kind: string, name: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name } });
  const namespaces = (value: string) => ({ namespaceSelector: { matchLabels: { params: value } } });
  return [
    {
      ...meta('ValidatingAdmissionPolicy', PARAM_POLICY_NAME),
      spec: {
        failurePolicy: 'Fail',
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { [CASE_LABEL]: 'yes' } },
        },
        validations: [{ expression: 'size(object.data) <= int(params.data.maxKeys)', messageExpression: "'at most ' + params.data.maxKeys + ' keys, per ' + params.metadata.name" }],
      },
    },
    {
      ...meta('ValidatingAdmissionPolicyBinding', `named.${PARAM_POLICY_NAME}`),
      spec: { policyName: PARAM_POLICY_NAME, validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' }, matchResources: namespaces('named') },
    },
    {
      ...meta('ValidatingAdmissionPolicyBinding', `selected.${PARAM_POLICY_NAME}`),
      spec: {
        policyName: PARAM_POLICY_NAME,
        validationActions: ['Warn'],
        paramRef: { selector: { matchLabels: { role: 'limit' } }, parameterNotFoundAction: 'Allow' },
        matchResources: namespaces('selected'),
      },
    },
  ] as unknown as Obj[];
}

/** ConfigMaps of 0 to 4 keys in each namespace. */
export function paramCases(): PolicyCase[] {
  return Object.keys(PARAM_NAMESPACES).flatMap((namespace) =>
    [0, 1, 2, 3, 4].map((keys) => ({
      id: `param-${namespace}-${keys}`,
      operation: 'CREATE' as const,
      ...CONFIGMAP,
      object: configMap(namespace, `keys-${keys}`, Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'v'])), { [CASE_LABEL]: 'yes' }),
    })),
  );
}

/** The webhook entry that stands in for the policy where serve enforces it. */
export function paramWebhookEntry(url: string, caBundle: string): object {
  return servedEntry(PARAM_POLICY_NAME, url, caBundle, CASE_LABEL);
}
