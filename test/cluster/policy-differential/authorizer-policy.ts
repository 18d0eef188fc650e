/**
 * A ValidatingAdmissionPolicy that asks the authorizer — about a service
 * account RBAC grants `get` on Secrets (a Role and RoleBinding created here),
 * and about the requester — and the ConfigMaps it judges: what the server
 * answers with SubjectAccessReviews where it enforces the policy.
 */
import type { Obj, PolicyCase } from './cases.js';
import { servedEntry } from './served-entry.js';

export const AUTHZ_POLICY_NAME = 'authz.served.shaper-gen.io';
export const AUTHZ_NAMESPACE = 'sp-authz';
const CASE_LABEL = 'authz-case';
const CONFIGMAP = { kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' } };
const secretsOf = (sa: string) => `authorizer.serviceAccount('${AUTHZ_NAMESPACE}', ${sa}).group('').resource('secrets').namespace('${AUTHZ_NAMESPACE}').check('get')`;

/** The Role granting `get` on Secrets and its binding to the service account `reader`, as RBAC objects to create. */
export function authzRbac(): { path: string; object: object }[] {
  const base = `/apis/rbac.authorization.k8s.io/v1/namespaces/${AUTHZ_NAMESPACE}`;
  return [
    {
      path: `${base}/roles`,
      object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
    },
    {
      path: `${base}/rolebindings`,
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'secret-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: AUTHZ_NAMESPACE }],
      },
    },
  ];
}

export function authzPolicyObjects(): Obj[] {
  const meta = (kind: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: AUTHZ_POLICY_NAME } });
  return [
    {
      ...meta('ValidatingAdmissionPolicy'),
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { [CASE_LABEL]: 'yes' } },
        },
        validations: [
          { expression: "authorizer.requestResource.check('create').allowed()", message: 'the requester may not create the ConfigMap' },
          { expression: `${secretsOf('object.data.sa')}.allowed()`, messageExpression: `'service account ' + object.data.sa + ' may not read secrets'` },
          { expression: `!${secretsOf('object.data.sa')}.allowed() || ${secretsOf('object.data.sa')}.reason().startsWith('RBAC: allowed by RoleBinding')`, message: 'RBAC allowed it' },
        ],
      },
    },
    { ...meta('ValidatingAdmissionPolicyBinding'), spec: { policyName: AUTHZ_POLICY_NAME, validationActions: ['Deny'] } },
  ] as unknown as Obj[];
}

export function authzCases(): PolicyCase[] {
  return ['reader', 'writer', ''].map((sa, i) => ({
    id: `authz-${i}`,
    operation: 'CREATE' as const,
    ...CONFIGMAP,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `sa-${i}`, namespace: AUTHZ_NAMESPACE, labels: { [CASE_LABEL]: 'yes' } }, data: { sa } },
  }));
}

/** The webhook entry that stands in for the policy where serve enforces it. */
export function authzWebhookEntry(url: string, caBundle: string): object {
  return servedEntry(AUTHZ_POLICY_NAME, url, caBundle, CASE_LABEL);
}
