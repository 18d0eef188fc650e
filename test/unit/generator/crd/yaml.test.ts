/** The schema's YAML: deterministic key order, every string Helm-safe, lists of objects in block style. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { blockYaml } from '../../../../generator/src/crd/yaml.js';

describe('blockYaml', () => {
  it('writes schema keys in their order, strings quoted with {{ escaped for Helm, and other keys as given', () => {
    const schema = {
      properties: { 'b{{x}}': { type: 'string' }, yes: { type: 'boolean' }, a: {} },
      'x-kubernetes-validations': [{ rule: "self.startsWith('{{')", message: 'no "{{"' }],
      required: ['yes'],
      description: 'line one\nline two',
      type: 'object',
    };
    expect(blockYaml(schema, 2)).toBe(
      [
        '  type: "object"',
        '  description: "line one\\nline two"',
        '  x-kubernetes-validations:',
        `    - rule: "self.startsWith('{{ "{{" }}')"`,
        '      message: "no \\"{{ "{{" }}\\""',
        '  required: ["yes"]',
        '  properties:',
        '    "b{{ "{{" }}x}}":',
        '      type: "string"',
        '    "yes":',
        '      type: "boolean"',
        '    a: {}',
      ].join('\n'),
    );
  });

  it('reads back as the same data once Helm has turned each {{ "{{" }} into {{', () => {
    const schema = { type: 'object', default: { list: [1, 'two', null, { deep: [true] }], empty: [] }, enum: [1.5, -2] };
    const rendered = blockYaml(schema, 0).replaceAll('{{ "{{" }}', '{{');
    expect(parse(rendered)).toEqual(schema);
  });
});
