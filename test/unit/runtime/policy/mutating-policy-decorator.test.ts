/**
 * `@MutatingPolicy` at run time: the options checked by the one schema
 * (runtime/policy/options/mutating-policy-*.ts, with the options every policy shares)
 * when the class is defined, and the resolved policy kept on the class for
 * `mutatingPolicyOf` and `runPolicy`.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, MutatingPolicy, mutatingPolicyOf, validatingPolicyOf } from 'shaper-gen';
import { decoratorThrows } from '../../../support/decorator-throws.js';

const RULES = [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }] as const;
const TEAM_LABEL = "Object{metadata: Object.metadata{labels: {'team': 'platform'}}}";

@MutatingPolicy({ rules: RULES, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: TEAM_LABEL } }] })
class TeamLabelDefault {}

/** What @MutatingPolicy throws for `options` on a class named `name`. */
function thrownFor(options: unknown, name = 'BadPolicy'): unknown {
  return decoratorThrows(MutatingPolicy, options, name);
}

describe('@MutatingPolicy', () => {
  it('keeps the resolved options on the class, every default applied', () => {
    expect(mutatingPolicyOf(TeamLabelDefault)).toEqual({
      name: 'team-label-default',
      rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
      excludeResourceRules: [],
      namespaceSelector: undefined,
      objectSelector: undefined,
      matchPolicy: 'Equivalent',
      matchConditions: [],
      variables: [],
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: TEAM_LABEL } }],
      failurePolicy: 'Fail',
      paramKind: undefined,
      paramRef: undefined,
      reinvocationPolicy: 'Never',
    });
    expect(validatingPolicyOf(TeamLabelDefault)).toBeUndefined();
    expect(mutatingPolicyOf(class Sub extends TeamLabelDefault {})).toBeUndefined();
  });

  it('throws a ConfigError naming the class and every problem, as the API server words them', () => {
    const error = thrownFor(
      {
        rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'DELETE'] }],
        mutations: [
          { patchType: 'JSONPatch', applyConfiguration: { expression: TEAM_LABEL } },
          { patchType: 'ApplyConfiguration', applyConfiguration: { expression: '  ' } },
          { patchType: 'StrategicMerge' },
        ],
        reinvocationPolicy: 'Always',
      },
      'LabelDefault',
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      [
        'invalid @MutatingPolicy options of LabelDefault:',
        '  rules[0].operations[1]: a mutating policy cannot match DELETE: operations must be among CREATE, UPDATE, CONNECT, * (there is no object to change)',
        '  mutations[0].applyConfiguration: applyConfiguration must not be specified when patchType is JSONPatch: set jsonPatch',
        '  mutations[0].jsonPatch: jsonPatch must be specified when patchType is JSONPatch: jsonPatch: { expression }',
        '  mutations[1].applyConfiguration.expression: mutation expression must not be empty',
        '  mutations[2].patchType: patchType must be one of "ApplyConfiguration", "JSONPatch", got "StrategicMerge"',
        '  reinvocationPolicy: reinvocationPolicy must be one of "Never", "IfNeeded", got "Always"',
      ].join('\n'),
    );
  });

  it.each([
    ['no mutations', { rules: RULES }, /\n {2}mutations: option "mutations" is required/],
    ['an empty list of mutations', { rules: RULES, mutations: [] }, /\n {2}mutations: mutations must contain at least one item/],
    ['a validating option', { rules: RULES, mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }], validations: [] }, /unknown option "validations"/],
  ])('refuses %s', (_case, options, message) => {
    const error = thrownFor(options);
    expect((error as ConfigError).message).toMatch(/^invalid @MutatingPolicy options of BadPolicy:\n/);
    expect((error as ConfigError).message).toMatch(message);
  });
});
