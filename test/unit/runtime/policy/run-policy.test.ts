/**
 * `runPolicy` beyond the sample's tests (sample/policies/policies.test.ts):
 * what the API server does on expression errors under each failurePolicy,
 * the Audit action, matchConditions, selectors against the namespace, lazy
 * variables (the libraries: run-policy-libraries.test.ts). The expected
 * messages are kube-apiserver's wording (k8s.io/apiserver
 * pkg/admission/plugin/policy/validating: validator.go, dispatcher.go;
 * pkg/admission/plugin/cel: activation.go, composition.go).
 */
import { describe, expect, it } from 'vitest';
import { ValidatingPolicy } from 'shaper-gen';
import { runPolicy } from 'shaper-gen/testing';

const RULES = [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }] as const;

const configMap = (data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'team-a', labels },
  data,
});
const denied = (policy: string, message: string) => `configmaps "settings" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: ${message}`;

const ERRING = "object.data.mode == 'fast'";

@ValidatingPolicy({ rules: RULES, validations: [{ expression: ERRING, message: 'mode must be fast' }] })
class FailOnError {}

@ValidatingPolicy({ rules: RULES, failurePolicy: 'Ignore', validations: [{ expression: ERRING, message: 'mode must be fast' }] })
class IgnoreErrors {}

describe('an expression that errors', () => {
  it('denies with the error under failurePolicy Fail', async () => {
    expect(await runPolicy(FailOnError, { object: configMap({}) })).toEqual({
      matched: true,
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: denied('fail-on-error', `expression '${ERRING}' resulted in error: no such key: mode`),
      warnings: [],
      auditAnnotations: {},
    });
  });

  it('is a warning instead when the binding only warns', async () => {
    const decision = await runPolicy(FailOnError, { object: configMap({}), validationActions: ['Warn'] });
    expect([decision.allowed, decision.warnings]).toEqual([
      true,
      [`Validation failed for ValidatingAdmissionPolicy 'fail-on-error' with binding 'fail-on-error': expression '${ERRING}' resulted in error: no such key: mode`],
    ]);
  });

  it('admits under failurePolicy Ignore, while a false result still denies', async () => {
    expect(await runPolicy(IgnoreErrors, { object: configMap({}) })).toEqual({ matched: true, allowed: true, code: 200, warnings: [], auditAnnotations: {} });
    expect((await runPolicy(IgnoreErrors, { object: configMap({ mode: 'slow' }) })).message).toBe(denied('ignore-errors', 'mode must be fast'));
  });
});

@ValidatingPolicy({
  rules: RULES,
  validations: [
    { expression: "'owner' in object.data", message: 'data needs an owner' },
    { expression: 'object.data.size() <= 2', messageExpression: "'at most 2 keys, got ' + string(object.data.size())" },
  ],
  validationActions: ['Audit'],
})
class AuditOnly {}

describe('the Audit action', () => {
  it('admits and records the failure in validation.policy.admission.k8s.io/validation_failure', async () => {
    expect(await runPolicy(AuditOnly, { object: configMap({ a: '1', b: '2', c: '3' }) })).toEqual({
      matched: true,
      allowed: true,
      code: 200,
      warnings: [],
      auditAnnotations: {
        'validation.policy.admission.k8s.io/validation_failure': JSON.stringify([
          { message: 'data needs an owner', policy: 'audit-only', binding: 'audit-only', expressionIndex: 0, validationActions: ['Audit'] },
          { message: 'at most 2 keys, got 3', policy: 'audit-only', binding: 'audit-only', expressionIndex: 1, validationActions: ['Audit'] },
        ]),
      },
    });
  });

  it('with Deny, denies and records the failure too', async () => {
    const decision = await runPolicy(AuditOnly, { object: configMap({ a: '1', b: '2', c: '3' }), validationActions: ['Deny', 'Audit'] });
    expect([decision.allowed, decision.message, Object.keys(decision.auditAnnotations)]).toEqual([
      false,
      denied('audit-only', 'data needs an owner'),
      ['validation.policy.admission.k8s.io/validation_failure'],
    ]);
  });

  it('gives each failure the index of its validation, counting those that passed', async () => {
    const decision = await runPolicy(AuditOnly, { object: configMap({ owner: 'team-a', b: '2', c: '3' }) });
    expect(JSON.parse(decision.auditAnnotations['validation.policy.admission.k8s.io/validation_failure']!)).toEqual([
      { message: 'at most 2 keys, got 3', policy: 'audit-only', binding: 'audit-only', expressionIndex: 1, validationActions: ['Audit'] },
    ]);
  });
});

@ValidatingPolicy({
  rules: RULES,
  auditAnnotations: [
    { key: 'mode', valueExpression: "'  ' + object.data.mode + '  '" },
    { key: 'empty', valueExpression: "''" },
    { key: 'none', valueExpression: 'null' },
  ],
})
class AnnotateMode {}

describe('audit annotations', () => {
  it('are published trimmed, and left out when empty or null', async () => {
    expect((await runPolicy(AnnotateMode, { object: configMap({ mode: 'fast' }) })).auditAnnotations).toEqual({ 'annotate-mode/mode': 'fast' });
  });
});

@ValidatingPolicy({
  rules: RULES,
  matchConditions: [
    { name: 'labelled', expression: "'team' in object.metadata.labels" },
    { name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" },
  ],
  validations: [{ expression: "object.metadata.labels.team != ''", message: 'team must not be empty' }],
})
class Conditional {}

@ValidatingPolicy({
  rules: RULES,
  failurePolicy: 'Ignore',
  matchConditions: [{ name: 'fast', expression: "object.data.mode == 'fast'" }],
  validations: [{ expression: 'false' }],
})
class ConditionalIgnore {}

@ValidatingPolicy({
  rules: RULES,
  matchConditions: [
    { name: 'fast', expression: "object.data.mode == 'fast'" },
    { name: 'labelled', expression: "'team' in object.metadata.labels" },
  ],
  validations: [{ expression: 'false' }],
})
class ConditionalFail {}

describe('matchConditions', () => {
  it('leave the request out when one is false, naming it', async () => {
    expect(await runPolicy(Conditional, { object: configMap({}) })).toEqual({
      matched: false,
      why: 'matchCondition "labelled" is false',
      allowed: true,
      code: 200,
      warnings: [],
      auditAnnotations: {},
    });
    const system = await runPolicy(Conditional, { object: configMap({}, { team: '' }), userInfo: { username: 'system:admin', groups: [] } });
    expect([system.matched, system.why]).toEqual([false, 'matchCondition "not-system" is false']);
    expect((await runPolicy(Conditional, { object: configMap({}, { team: '' }) })).message).toBe(denied('conditional', 'team must not be empty'));
  });

  it('that error deny under failurePolicy Fail, and leave the request out under Ignore', async () => {
    expect((await runPolicy(ConditionalFail, { object: configMap({}, { team: 'a' }) })).message).toBe(
      denied('conditional-fail', "expression 'object.data.mode == 'fast'' resulted in error: no such key: mode"),
    );
    expect(await runPolicy(ConditionalIgnore, { object: configMap({}) })).toMatchObject({ matched: false, why: 'a matchCondition failed and failurePolicy is Ignore', allowed: true });
  });

  it('false beats an error: the request is left out', async () => {
    expect(await runPolicy(ConditionalFail, { object: configMap({}) })).toMatchObject({ matched: false, why: 'matchCondition "labelled" is false', allowed: true });
  });
});

@ValidatingPolicy({
  rules: RULES,
  namespaceSelector: { matchLabels: { env: 'prod' } },
  validations: [{ expression: "namespaceObject.metadata.labels.env == 'prod' && 'owner' in object.data", message: 'production ConfigMaps need an owner' }],
})
class ProductionOnly {}

@ValidatingPolicy({
  rules: RULES,
  namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] }] },
  validations: [{ expression: "namespaceObject.metadata.name == 'team-a' && namespaceObject.status.phase == 'Active'" }],
})
class TeamAOnly {}

describe('namespaceSelector', () => {
  const namespace = (labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels } });

  it('is matched against the namespaceObject given, which the expressions see too', async () => {
    expect((await runPolicy(ProductionOnly, { object: configMap({}), namespaceObject: namespace({ env: 'prod' }) })).message).toBe(
      denied('production-only', 'production ConfigMaps need an owner'),
    );
    expect((await runPolicy(ProductionOnly, { object: configMap({ owner: 'a' }), namespaceObject: namespace({ env: 'prod' }) })).allowed).toBe(true);
    expect(await runPolicy(ProductionOnly, { object: configMap({}), namespaceObject: namespace({ env: 'dev' }) })).toMatchObject({
      matched: false,
      why: 'the namespaceSelector does not select the namespace',
    });
  });

  it('by default sees a Namespace with its kubernetes.io/metadata.name label', async () => {
    expect(await runPolicy(TeamAOnly, { object: configMap({}) })).toMatchObject({ matched: true, allowed: true });
    expect(await runPolicy(ProductionOnly, { object: configMap({}) })).toMatchObject({ matched: false, why: 'the namespaceSelector does not select the namespace' });
  });
});

@ValidatingPolicy({
  rules: RULES,
  variables: [
    { name: 'broken', expression: 'object.data.missing' },
    { name: 'mode', expression: "'mode' in object.data ? object.data.mode : 'slow'" },
  ],
  validations: [{ expression: "variables.mode == 'fast'", messageExpression: "'mode must be fast, got ' + variables.mode" }],
})
class LazyVariables {}

@ValidatingPolicy({
  rules: RULES,
  variables: [{ name: 'broken', expression: 'object.data.missing' }],
  validations: [{ expression: "variables.broken == 'x'" }],
})
class UsesBrokenVariable {}

describe('variables', () => {
  it('are evaluated when used: an erroring variable no expression reads fails nothing', async () => {
    expect((await runPolicy(LazyVariables, { object: configMap({ mode: 'fast' }) })).allowed).toBe(true);
    expect((await runPolicy(LazyVariables, { object: configMap({}) })).message).toBe(denied('lazy-variables', 'mode must be fast, got slow'));
  });

  it('that error fail the expression reading them, with the composition wording', async () => {
    expect((await runPolicy(UsesBrokenVariable, { object: configMap({}) })).message).toBe(
      denied('uses-broken-variable', `expression 'variables.broken == 'x'' resulted in error: composited variable "broken" fails to evaluate: no such key: missing`),
    );
  });
});

describe('runPolicy', () => {
  it('refuses a class that is not decorated with @ValidatingPolicy or @MutatingPolicy', async () => {
    class Plain {}
    await expect(runPolicy(Plain, { object: configMap({}) })).rejects.toThrow(new TypeError('runPolicy: Plain is not decorated with @ValidatingPolicy or @MutatingPolicy'));
  });

  it('leaves out what the rules do not name', async () => {
    expect(await runPolicy(FailOnError, { object: configMap({}), operation: 'DELETE', oldObject: configMap({}) })).toMatchObject({ matched: false, why: 'no rule matches the request' });
  });
});
