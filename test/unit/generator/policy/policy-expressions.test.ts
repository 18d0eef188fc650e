import { describe, expect, it } from 'vitest';
import { checkPolicyExpressions } from '../../../../generator/src/policy/expressions.js';
import { resolveValidatingPolicyOptions } from '../../../../runtime/policy/options/policy-resolve.js';

const SCHEMA = {
  type: 'object',
  properties: {
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: { tier: { type: 'string' }, priority: { type: 'integer' }, ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } } } } },
    },
  },
};

function problems(expressions: string[]): string[] {
  const { policy } = resolveValidatingPolicyOptions(
    { rules: [{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['UPDATE'] }], validations: expressions.map((expression) => ({ expression })) },
    'ProfilePolicy',
  );
  return checkPolicyExpressions(policy!, { name: 'profiles.shaper.io/v1alpha1', schema: SCHEMA }).map((p) => p.message);
}

describe('policy expressions typed from the schema', () => {
  it('compare whole objects of one type, as cel-go does (immutability checks)', () => {
    expect(problems(['object == oldObject', 'object.spec == oldObject.spec', 'object.metadata != oldObject.metadata', 'object.spec.ports == oldObject.spec.ports'])).toEqual([]);
  });

  it('refuse a misspelt field and a comparison across types', () => {
    expect(problems(['object.spec.tierr == oldObject.spec.tier', "object.spec.priority == 'high'"])).toEqual([
      'validations[0].expression: CEL compilation failed at column 13: No such key: tierr (object is profiles.shaper.io/v1alpha1, typed from its schema)',
      'validations[1].expression: CEL compilation failed at column 1: no such overload: int == string (object is profiles.shaper.io/v1alpha1, typed from its schema)',
    ]);
  });

  it('refuse a misspelt field in has(), and the fields before it, as cel-go does; a map key or a dyn field is no field', () => {
    expect(
      problems([
        'has(object.spec.tier) && has(object.spec.tierr)',
        'object.spec.ports.all(p, has(p.prot))',
        'has(object.spek.tier)',
        'has(object.metadata.labels) && has(object.metadata.labels.app) && has(object.metadata.nam)',
        'has(oldObject.spec.ports) && oldObject.spec.ports.all(p, has(p.port))',
      ]),
    ).toEqual([
      'validations[0].expression: CEL compilation failed at column 42: No such key: tierr (object is profiles.shaper.io/v1alpha1, typed from its schema)',
      'validations[1].expression: CEL compilation failed at column 32: No such key: prot (object is profiles.shaper.io/v1alpha1, typed from its schema)',
      'validations[2].expression: CEL compilation failed at column 12: No such key: spek (object is profiles.shaper.io/v1alpha1, typed from its schema)',
      'validations[3].expression: CEL compilation failed at column 87: No such key: nam (object is profiles.shaper.io/v1alpha1, typed from its schema)',
    ]);
  });
});

describe("policy expressions where cel-js and the API server's compiler disagree", () => {
  const check = (options: object) => checkPolicyExpressions(resolveValidatingPolicyOptions(options, 'ConfigMapPolicy').policy!, undefined).map((p) => p.message);
  const rules = [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }];

  it("accept what the API server accepts and cel-js refuses: quantity equality, transformList's filter, an optional list literal", () => {
    expect(
      check({
        rules,
        validations: [
          { expression: 'quantity(object.data.q) == quantity(object.data.r)' },
          { expression: "object.data.transformList(k, v, v != 'x', k).size() > 0" },
          { expression: "[?object.data.?a, ?object.data.?b].join(',') != ''" },
        ],
      }),
    ).toEqual([]);
  });

  it('let a variable see only the variables before it, as the API server composes them', () => {
    expect(
      check({
        rules,
        variables: [
          { name: 'first', expression: 'variables.later' },
          { name: 'later', expression: '1' },
        ],
        validations: [{ expression: 'variables.later == 1' }],
      }),
    ).toEqual(['variables[0].expression: CEL compilation failed at column 11: No such key: later']);
  });
});
