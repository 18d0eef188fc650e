/**
 * The library policies (library-policies.ts) as the objects the API server
 * stores and as the options shaper-gen/testing resolves, one source for
 * both; their requests (a ConfigMap CREATE per input); the RBAC the
 * authorizer's checks meet on the server and the same answers declared for
 * the local evaluation.
 */
import type { AuthorizerRule } from '../../../generator/src/cel/engine/index.js';
import type { ResolvedValidatingPolicy } from '../../../runtime/policy/options/policy-types.js';
import { resolveValidatingPolicyOptions } from '../../../runtime/policy/options/policy-resolve.js';
import { ADMIN, matchConstraints } from './cluster.js';
import type { PolicyCase } from './cases.js';
import { EXPRESSION_CASES, type ExpressionCase } from './expressions.js';
import { AUTHZ_NAMESPACE, AUTHZ_READER, LIBRARY_LABEL, LIBRARY_POLICIES, type LibraryPolicy } from './library-policies.js';

const CONFIGMAP = { kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' } };
const RULES = [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }];

export const libraryNamespace = (library: string) => `lib-${library}`;
const policyName = (library: string) => `${library}.library.policy-test.shaper-gen.io`;

/** The decorator's options for the policy: what shaper-gen/testing resolves, and what the objects below are written from. */
function options(policy: LibraryPolicy) {
  return {
    name: policyName(policy.library),
    rules: RULES,
    namespaceSelector: { matchLabels: { [LIBRARY_LABEL]: policy.library } },
    failurePolicy: policy.failurePolicy ?? 'Fail',
    validationActions: policy.validationActions,
    ...(policy.variables && { variables: policy.variables }),
    validations: policy.validations,
    ...(policy.auditAnnotations && { auditAnnotations: policy.auditAnnotations }),
  };
}

export function resolvedLibraryPolicies(): ResolvedValidatingPolicy[] {
  return LIBRARY_POLICIES.map((policy) => {
    const { policy: resolved, problems } = resolveValidatingPolicyOptions(options(policy), 'LibraryPolicy');
    if (!resolved) throw new Error(`library policy ${policy.library} refused: ${problems.map((p) => p.message).join('; ')}`);
    return resolved;
  });
}

/** The ValidatingAdmissionPolicy and its binding (named after it), as admissionregistration.k8s.io/v1 objects. */
export function libraryPolicyObjects(): { kind: string; metadata: { name: string }; [key: string]: unknown }[] {
  return LIBRARY_POLICIES.flatMap((policy) => {
    const { name, rules, namespaceSelector, validationActions, ...spec } = options(policy);
    return [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        spec: { ...spec, matchConstraints: { ...matchConstraints(rules), namespaceSelector } },
      },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: name, validationActions } },
    ];
  });
}

export const LIBRARY_NAMESPACES: Readonly<Record<string, Record<string, string>>> = Object.fromEntries(
  LIBRARY_POLICIES.map((policy) => [libraryNamespace(policy.library), { [LIBRARY_LABEL]: policy.library }]),
);

export function libraryCases(): (PolicyCase & { library: string })[] {
  return LIBRARY_POLICIES.flatMap((policy) =>
    policy.inputs.map((data, i) => ({
      id: `lib-${policy.library}-${i}`,
      library: policy.library,
      operation: 'CREATE' as const,
      ...CONFIGMAP,
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: libraryNamespace(policy.library) }, ...(Object.keys(data).length > 0 && { data: { ...data } }) },
    })),
  );
}

const READER_USER = `system:serviceaccount:${AUTHZ_NAMESPACE}:${AUTHZ_READER}`;

/** What RBAC grants on the server: the reader may get and list pods in its namespace. */
export const AUTHZ_RBAC = [
  {
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${AUTHZ_NAMESPACE}/roles`,
    object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  },
  {
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${AUTHZ_NAMESPACE}/rolebindings`,
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'pod-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: AUTHZ_READER, namespace: AUTHZ_NAMESPACE }],
    },
  },
];

/** The same answers for the local evaluation: the reader's grants, the admin (system:masters) allowed everything, anyone else no opinion. */
export const AUTHZ_RULES: readonly AuthorizerRule[] = [
  { user: READER_USER, verb: 'get', group: '', resource: 'pods', namespace: AUTHZ_NAMESPACE, decision: 'allow' },
  { user: READER_USER, verb: 'list', group: '', resource: 'pods', namespace: AUTHZ_NAMESPACE, decision: 'allow' },
  { user: ADMIN.username, decision: 'allow' },
  { decision: 'noOpinion' },
];

/**
 * What no request can reach, judged when the policy is created: the encoders the API server does not
 * load, and constant errors its program build folds (cel.OptOptimize), which it reports as compile errors.
 */
const CONSTANT_CASES: readonly ExpressionCase[] = [
  "base64.encode(b'abc') != ''",
  "string(b'\\xff') != ''",
  "int('') > 0",
  '9223372036854775807 + 1 > 0',
  '1 / 0 > 0',
  "timestamp('2024-13-01T00:00:00Z') > timestamp('2024-01-01T00:00:00Z')",
  "duration('1x') > duration('1s')",
  "'abc'.matches('[')",
  "'😀bc'.indexOf('b') == 1",
  "'ÀB'.lowerAscii() == 'Àb'",
].map((expression) => ({ place: 'validation', expression }));

/** The compile differential's cases and every library probe that needs no variables, in its place: what the API server, the engine and cel-js are each asked to accept or refuse. */
export function compileCases(): ExpressionCase[] {
  const probes = LIBRARY_POLICIES.flatMap((policy) =>
    policy.validations.flatMap((probe): ExpressionCase[] => [
      { place: 'validation', expression: probe.expression },
      ...(probe.messageExpression === undefined ? [] : [{ place: 'messageExpression' as const, expression: probe.messageExpression }]),
    ]),
  ).filter((c) => !c.expression.includes('variables.'));
  const unique = new Map([...EXPRESSION_CASES, ...probes, ...CONSTANT_CASES].map((c) => [`${c.place} ${String(c.params)} ${c.expression}`, c]));
  return [...unique.values()];
}
