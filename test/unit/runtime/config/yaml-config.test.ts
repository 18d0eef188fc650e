/** readYamlConfig (config/yaml-config.ts) against a schema: the value read, and every problem with its path, line and column. */
import { describe, expect, it } from 'vitest';
import { readYamlConfig as readWithSources } from '../../../../runtime/config/yaml-config.js';
import type { Schema } from '../../../../runtime/config/schema.js';
import { formatProblemPath } from '../../../../runtime/problems.js';

/** The result with each problem flattened to where it is and what it says (the file is always config.yaml here). */
function readYamlConfig(text: string, schema: Extract<Schema, { type: 'object' }>) {
  const { value, problems } = readWithSources(text, schema, 'config.yaml');
  return {
    value,
    problems: problems.map((problem) => {
      expect(problem.source.file).toBe('config.yaml');
      return { line: problem.source.line, column: problem.source.column, path: formatProblemPath(problem.path), message: problem.message };
    }),
  };
}

const schema = {
  type: 'object',
  fields: {
    name: { type: 'string', pattern: /^[a-z]+$/, hint: 'must be lowercase letters' },
    tag: { type: 'string', pattern: /^v\d$/ },
    port: { type: 'integer', min: 1, max: 65535 },
    workers: { type: 'integer', min: 1 },
    offset: { type: 'integer', max: 0 },
    ratio: { type: 'number' },
    enabled: { type: 'boolean' },
    level: { type: 'enum', values: ['info', 'debug'] },
    sources: { type: 'list', items: { type: 'string' } },
    listener: { type: 'object', fields: { port: { type: 'integer' } } },
  },
} as const satisfies Extract<Schema, { type: 'object' }>;

describe('readYamlConfig', () => {
  it('reads a valid document; an empty one, or an empty mapping, is an empty object', () => {
    const text = 'name: web\ntag: v1\nport: 443\nworkers: 2\noffset: -1\nratio: 0.5\nenabled: true\nlevel: debug\nsources: [a, b]\nlistener: { port: 9 }\n';
    expect(readYamlConfig(text, schema)).toEqual({
      value: { name: 'web', tag: 'v1', port: 443, workers: 2, offset: -1, ratio: 0.5, enabled: true, level: 'debug', sources: ['a', 'b'], listener: { port: 9 } },
      problems: [],
    });
    expect(readYamlConfig('', schema)).toEqual({ value: {}, problems: [] });
    expect(readYamlConfig('listener:\n', schema)).toEqual({ value: { listener: {} }, problems: [] });
  });

  it.each<[string, string, { line: number; column: number; path: string; message: string }[]]>([
    [
      'an unknown key, with a suggestion',
      'nmae: web\n',
      [{ line: 1, column: 1, path: 'nmae', message: 'unknown key; did you mean "name"? expected one of name, tag, port, workers, offset, ratio, enabled, level, sources, listener' }],
    ],
    [
      'an unknown key, nothing near',
      'colour: red\n',
      [{ line: 1, column: 1, path: 'colour', message: 'unknown key; expected one of name, tag, port, workers, offset, ratio, enabled, level, sources, listener' }],
    ],
    ['an unknown nested key, with a near miss', 'listener:\n  host: x\n', [{ line: 2, column: 3, path: 'listener.host', message: 'unknown key; did you mean "port"? expected one of port' }]],
    ['a pattern with a hint', 'name: Web\n', [{ line: 1, column: 7, path: 'name', message: 'must be lowercase letters' }]],
    ['a pattern without a hint', 'tag: x\n', [{ line: 1, column: 6, path: 'tag', message: 'must match /^v\\d$/' }]],
    ['a string that is a number', 'name: 5\n', [{ line: 1, column: 7, path: 'name', message: 'must be a string' }]],
    ['an integer out of range', 'port: 0\n', [{ line: 1, column: 7, path: 'port', message: 'must be an integer from 1 to 65535' }]],
    ['an integer below its minimum', 'workers: 0\n', [{ line: 1, column: 10, path: 'workers', message: 'must be an integer of at least 1' }]],
    ['an integer above its maximum', 'offset: 1\n', [{ line: 1, column: 9, path: 'offset', message: 'must be an integer of at most 0' }]],
    ['a fraction for an integer', 'workers: 1.5\n', [{ line: 1, column: 10, path: 'workers', message: 'must be an integer of at least 1' }]],
    ['a string for a number', 'ratio: half\n', [{ line: 1, column: 8, path: 'ratio', message: 'must be a number' }]],
    ['a string for a boolean', 'enabled: "yes"\n', [{ line: 1, column: 10, path: 'enabled', message: 'must be true or false' }]],
    ['a value outside an enum', 'level: loud\n', [{ line: 1, column: 8, path: 'level', message: 'must be one of info, debug' }]],
    ['a scalar for a list', 'sources: a\n', [{ line: 1, column: 10, path: 'sources', message: 'must be a list' }]],
    ['a wrong list item', 'sources:\n  - a\n  - 3\n', [{ line: 3, column: 5, path: 'sources[1]', message: 'must be a string' }]],
    ['a list for a mapping', 'listener: [1]\n', [{ line: 1, column: 11, path: 'listener', message: 'must be a mapping' }]],
    ['a scalar document', 'hello\n', [{ line: 1, column: 1, path: '', message: 'the document must be a mapping' }]],
    [
      'several problems, in document order',
      'port: x\nlevel: y\n',
      [
        { line: 1, column: 7, path: 'port', message: 'must be an integer from 1 to 65535' },
        { line: 2, column: 8, path: 'level', message: 'must be one of info, debug' },
      ],
    ],
  ])('reports %s', (_name, text, problems) => {
    expect(readYamlConfig(text, schema).problems).toEqual(problems);
  });

  it('keeps the valid keys of a document with problems', () => {
    expect(readYamlConfig('name: web\nport: 0\n', schema)).toEqual({ value: { name: 'web', port: undefined }, problems: [expect.objectContaining({ path: 'port' })] });
  });

  it('a YAML syntax error or a duplicate key: the parser message at its position, and no value', () => {
    const syntax = readYamlConfig('name: [web\n', schema);
    expect<unknown>(syntax.value).toEqual({});
    expect(syntax.problems).toEqual([{ line: expect.any(Number), column: expect.any(Number), path: '', message: expect.any(String) }]);
    expect(readYamlConfig('name: a\nname: b\n', schema)).toEqual({ value: {}, problems: [{ line: 2, column: 1, path: '', message: 'Map keys must be unique' }] });
  });
});
