/** When runWebhook may skip the CEL engine: only where the API server's decoding certainly leaves the objects as they are. */
import { describe, expect, it } from 'vitest';
import { decodingMayChange } from '../../../../generator/src/testing/decoding-changes.js';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { size: { type: 'string' }, ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};
const versions = [{ name: 'v1', storage: true, schema: { openAPIV3Schema: schema } }];
const widget = (spec: unknown, metadata: Record<string, unknown> = { name: 'w', namespace: 'n', labels: { a: 'b' } }) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata, spec });

describe('decodingMayChange', () => {
  it('is false only for objects within the schema, with plain metadata, under schemas without defaults', () => {
    expect(decodingMayChange(versions, 'v1', widget({ size: 's', ports: [{ name: 'http' }] }), widget({}))).toBe(false);
  });

  it('is true wherever decoding could change something', () => {
    const cases = [
      decodingMayChange(versions, 'v1', widget({ colour: 'red' })),
      decodingMayChange(versions, 'v1', widget({ ports: [{ name: 'a', port: 1 }] })),
      decodingMayChange(versions, 'v1', widget({ size: null })),
      decodingMayChange(versions, 'v1', { ...widget({}), extra: 1 }),
      decodingMayChange(versions, 'v1', widget({}, { name: 'w', colour: 'red' })),
      decodingMayChange(versions, 'v1', widget({}), widget({ colour: 'red' })),
      decodingMayChange(
        [
          { ...versions[0]!, storage: false },
          { name: 'v2', storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
        'v1',
        widget({}),
        widget({ size: 's' }),
      ),
      decodingMayChange(
        [{ name: 'v1', storage: true, schema: { openAPIV3Schema: { ...schema, properties: { ...schema.properties, spec: { type: 'object', default: {} } } } } }],
        'v1',
        widget({}),
      ),
    ];
    expect(cases).toEqual([true, true, true, true, true, true, true, true]);
  });
});
