/** A policy holding one expression in one place: what the compile differentials create on the API server (dry run) and check locally. */
import { matchConstraints } from './cluster.js';
import type { ExpressionCase } from './expressions.js';

/** Policy options holding `expression` in its place. */
export function expressionPolicy({ place, expression, params }: ExpressionCase) {
  const always = [{ expression: 'true' }];
  return {
    name: 'expression.policy-test.shaper-gen.io',
    rules: [{ groups: ['apps'], versions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }],
    ...(params && { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
    ...(place === 'validation' && { validations: [{ expression }] }),
    ...(place === 'messageExpression' && { validations: [{ expression: 'true', messageExpression: expression }] }),
    ...(place === 'valueExpression' && { validations: always, auditAnnotations: [{ key: 'k', valueExpression: expression }] }),
    ...(place === 'matchCondition' && { validations: always, matchConditions: [{ name: 'c', expression }] }),
    ...(place === 'variable' && { validations: always, variables: [{ name: 'v', expression }] }),
  };
}

/** The ValidatingAdmissionPolicy the chart template would render for these options (only what decides whether its CEL compiles). */
export function policyObject(options: ReturnType<typeof expressionPolicy>) {
  const { name, rules, paramRef: _paramRef, ...rest } = options;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { failurePolicy: 'Fail', matchConstraints: matchConstraints(rules), ...rest },
  };
}
