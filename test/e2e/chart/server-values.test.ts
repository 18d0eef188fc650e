/**
 * The chart's `server` values are the ServerConfig settings under chart names: each one's bounds in
 * values.schema.json and its default in values.yaml must be the server's own (runtime/config/server-config.ts),
 * or differ where the chart means something else, as listed here. A setting added to one side only fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, parseServerConfig, SERVER_CONFIG_SCHEMA } from '../../../runtime/config/server-config.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { findObject, helmTemplate } from '../../support/helm.js';

const CHART = path.join(REPO_ROOT, 'charts/shaper-webhooks');

/** Chart value (under `server`) → ServerConfig setting. */
const SETTINGS: Record<string, string> = {
  'ports.webhook': 'webhook.port',
  'ports.health': 'health.port',
  'ports.metrics': 'metrics.port',
  workers: 'workers',
  livenessStallSeconds: 'health.stallSeconds',
  maxRequestBytes: 'webhook.maxRequestBytes',
  maxConnections: 'webhook.maxConnections',
  maxHandshakes: 'webhook.maxHandshakes',
  tlsMinVersion: 'webhook.tlsMinVersion',
  cipherSuites: 'webhook.cipherSuites',
  clientCAName: 'webhook.clientCAName',
  'shutdown.drainSeconds': 'shutdown.drainSeconds',
  'shutdown.timeoutSeconds': 'shutdown.timeoutSeconds',
  'log.level': 'log.level',
  'metrics.gcDurations': 'metrics.gcDurations',
};
/** Chart values that are not ServerConfig settings. */
const CHART_ONLY = ['handlers'];

interface SchemaNode {
  type?: string;
  min?: number;
  max?: number;
  values?: readonly string[];
  items?: SchemaNode;
  fields?: Record<string, SchemaNode>;
  pattern?: RegExp;
}
interface JsonSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  pattern?: string;
}

const at = (root: unknown, dotted: string, step: (node: any, key: string) => unknown): unknown => dotted.split('.').reduce(step, root);
const serverSetting = (dotted: string) => at(SERVER_CONFIG_SCHEMA, dotted, (node, key) => node.fields[key]) as SchemaNode;
const chartValue = (schema: JsonSchema, dotted: string) => at(schema, dotted, (node, key) => node.properties[key]) as JsonSchema;

/** A setting's bounds in JSON-schema words. */
function bounds(node: SchemaNode): JsonSchema {
  switch (node.type) {
    case 'integer':
      return { type: 'integer', minimum: node.min, maximum: node.max };
    case 'enum':
      return { enum: [...node.values!] };
    case 'list':
      return { type: 'array', items: bounds(node.items!) };
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return node.pattern ? { type: 'string', pattern: node.pattern.source } : { type: 'string' };
    default:
      throw new Error(`no JSON-schema form for a ${node.type} setting`);
  }
}

function chartBounds(node: JsonSchema): JsonSchema {
  const { type, minimum, maximum, enum: values, items, pattern } = node;
  return Object.fromEntries(Object.entries({ type, minimum, maximum, enum: values, items: items && chartBounds(items), pattern }).filter(([, v]) => v !== undefined));
}

describe("the chart's server values", () => {
  const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as JsonSchema;
  const server = schema.properties!.server!;

  it('are every ServerConfig setting the chart passes on, and no other', () => {
    const leaves = (node: JsonSchema, prefix: string): string[] =>
      Object.entries(node.properties ?? {}).flatMap(([key, child]) => (child.type === 'object' ? leaves(child, `${prefix}${key}.`) : [`${prefix}${key}`]));
    expect(leaves(server, '').sort()).toEqual([...Object.keys(SETTINGS), ...CHART_ONLY].sort());
  });

  it("have the server's bounds, except where the chart means something else", () => {
    const compared = Object.fromEntries(Object.entries(SETTINGS).map(([value, setting]) => [value, { chart: chartBounds(chartValue(server, value)), server: bounds(serverSetting(setting)) }]));
    const differences = Object.fromEntries(Object.entries(compared).filter(([, { chart, server: own }]) => JSON.stringify(chart) !== JSON.stringify(own)));
    expect(differences).toEqual({
      // The chart always runs all three listeners; the server takes 0 for "off".
      'ports.webhook': { chart: { type: 'integer', minimum: 1, maximum: 65535 }, server: { type: 'integer', minimum: 0, maximum: 65535 } },
      'ports.health': { chart: { type: 'integer', minimum: 1, maximum: 65535 }, server: { type: 'integer', minimum: 0, maximum: 65535 } },
      'ports.metrics': { chart: { type: 'integer', minimum: 1, maximum: 65535 }, server: { type: 'integer', minimum: 0, maximum: 65535 } },
      // 0 in the chart: one worker per whole CPU of the container's limit, which the chart computes.
      workers: { chart: { type: 'integer', minimum: 0, maximum: 64 }, server: { type: 'integer', minimum: 1, maximum: 64 } },
    });
  });

  it("render the server's own default for every setting they share", async () => {
    const objects = await helmTemplate(CHART, { release: 'shaper', namespace: 'shaper-system' });
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-config')) ?? findObject(objects, 'ConfigMap');
    const rendered = parseServerConfig(configMap.data['config.yaml'], 'config.yaml');
    const read = (config: unknown) => Object.fromEntries(Object.values(SETTINGS).map((setting) => [setting, at(config, setting, (node: any, key) => node[key])]));
    const differences = Object.fromEntries(Object.entries(read(rendered)).filter(([setting, value]) => JSON.stringify(value) !== JSON.stringify(read(DEFAULT_SERVER_CONFIG)[setting])));
    expect(differences).toEqual({});
  });

  it("are the ports the Dockerfiles expose: the repository's and the one init scaffolds", () => {
    const exposed = (dockerfile: string) =>
      /^EXPOSE (.*)$/m
        .exec(readFileSync(path.join(REPO_ROOT, dockerfile), 'utf8'))?.[1]
        ?.split(' ')
        .map(Number);
    const { webhook, health, metrics } = DEFAULT_SERVER_CONFIG;
    expect([exposed('Dockerfile'), exposed('generator/scaffold/project/Dockerfile')]).toEqual([
      [webhook.port, health.port, metrics.port],
      [webhook.port, health.port, metrics.port],
    ]);
  });
});
