/**
 * `@ValidatingPolicy` at run time: the options checked by the one schema
 * (runtime/policy/options/policy-*.ts) when the class is defined, and the resolved
 * policy kept on the class for `validatingPolicyOf` and `runPolicy`.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, ValidatingPolicy, validatingPolicyOf, webhookOf } from 'shaper-gen';
import { decoratorThrows } from '../../../support/decorator-throws.js';

const RULES = [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }] as const;

@ValidatingPolicy({ rules: RULES, validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'a ConfigMap needs a team label' }] })
class TeamLabelPolicy {}

/** What @ValidatingPolicy throws for `options` on a class named `name`. */
function thrownFor(options: unknown, name = 'BadPolicy'): unknown {
  return decoratorThrows(ValidatingPolicy, options, name);
}

describe('@ValidatingPolicy', () => {
  it('keeps the resolved options on the class, every default applied', () => {
    expect(validatingPolicyOf(TeamLabelPolicy)).toEqual({
      name: 'team-label-policy',
      rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
      excludeResourceRules: [],
      namespaceSelector: undefined,
      objectSelector: undefined,
      matchPolicy: 'Equivalent',
      matchConditions: [],
      variables: [],
      validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'a ConfigMap needs a team label' }],
      auditAnnotations: [],
      failurePolicy: 'Fail',
      paramKind: undefined,
      paramRef: undefined,
      validationActions: ['Deny'],
    });
    // A policy is not a webhook, and the metadata is the class's own, not inherited.
    expect(webhookOf(TeamLabelPolicy)).toBeUndefined();
    expect(validatingPolicyOf(class Plain {})).toBeUndefined();
    expect(validatingPolicyOf(class Sub extends TeamLabelPolicy {})).toBeUndefined();
    expect(validatingPolicyOf(new TeamLabelPolicy())).toBeUndefined();
    expect(validatingPolicyOf(undefined)).toBeUndefined();
  });

  it('throws a ConfigError naming the class and every problem with its option path', () => {
    const error = thrownFor({ rules: RULES, validations: [{ expression: 'true', reason: 'Teapot' }], validationActions: ['Deny', 'Warn'], failurePolicy: 'fail' }, 'ReplicaPolicy');
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      [
        'invalid @ValidatingPolicy options of ReplicaPolicy:',
        '  validations[0].reason: reason must be one of "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge", got "Teapot"',
        '  failurePolicy: failurePolicy must be one of "Fail", "Ignore", got "fail"',
        '  validationActions: validationActions must not contain both Deny and Warn (the API server refuses it): pick one, with Audit if you like',
      ].join('\n'),
    );
  });

  it.each([
    ['an unknown option', { rules: RULES, validation: [{ expression: 'true' }] }, /unknown option "validation"; did you mean "validations"\?/],
    ['paramRef without paramKind', { rules: RULES, validations: [{ expression: 'true' }], paramRef: { name: 'p', parameterNotFoundAction: 'Deny' } }, /\n {2}paramRef: paramRef needs paramKind/],
    ['no validations and no audit annotations', { rules: RULES }, /\n {2}validations: a policy needs at least one validation or audit annotation/],
    ['no rules', { validations: [{ expression: 'true' }] }, /\n {2}rules: option "rules" is required/],
    ['options that are not an object', 'rules', /@ValidatingPolicy expects an options object/],
  ])('refuses %s', (_case, options, message) => {
    const error = thrownFor(options);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/^invalid @ValidatingPolicy options of BadPolicy:\n/);
    expect((error as ConfigError).message).toMatch(message);
  });

  it('decorates classes only', () => {
    const decorate = ValidatingPolicy({ rules: RULES, validations: [{ expression: 'true' }] });
    expect(() => decorate(class X {}, { kind: 'method' } as never)).toThrow(new TypeError('@ValidatingPolicy decorates classes, not a method'));
  });
});

describe("a policy's default name", () => {
  const named = (...groups: string[]) => {
    const policy = class ReplicasPolicy {};
    ValidatingPolicy({ rules: [{ groups, versions: ['v1'], resources: ['things'], operations: ['CREATE'] }], validations: [{ expression: 'true' }] })(policy);
    return validatingPolicyOf(policy)!.name;
  };

  it("ends in the first rule group that is the user's domain, and in no domain when the rules name only core and Kubernetes' groups", () => {
    expect([named('apps', 'example.com'), named(''), named('apps', 'batch'), named('networking.k8s.io'), named('storage.kubernetes.io', 'apps.example.com')]).toEqual([
      'replicas-policy.example.com',
      'replicas-policy',
      'replicas-policy',
      'replicas-policy',
      'replicas-policy.apps.example.com',
    ]);
  });
});
