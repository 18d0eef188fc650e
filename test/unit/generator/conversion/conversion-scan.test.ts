/**
 * `@Conversion` in `shaper-gen manifests`: every wrong declaration reported as
 * `file:line:col: message` at the option, member or class that is wrong, with
 * nothing written; and a right one rendered by the pinned helm into the CRD's
 * `spec.conversion` and annotations for each way the chart is installed, the
 * conversion path among the server's expected paths, and the handlers module's
 * `conversions` export.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { runManifests } from '../../../../generator/src/manifests/run-manifests.js';
import { parseServerConfig } from '../../../../runtime/config/server-config.js';
import { createFixtureProject, type FixtureProject } from '../../../support/fixture-project.js';
import { findObject, helmTemplate } from '../../../support/helm.js';

/** example.com v1 (src/api/) and v2 (src/api/v2/): the kind Gadget in both, stored as v1. */
const API = {
  'src/api/group.ts': `/** @shaper:groupName */
export const GROUP = 'example.com';
/** @shaper:versionName */
export const VERSION = 'v1';
`,
  'src/api/gadget.ts': `import type { KubernetesObject } from 'shaper-gen';
/**
 * @shaper:resource
 * @shaper:storageversion
 */
export interface Gadget extends KubernetesObject {
  spec?: { size?: number };
}
/** @shaper:resource */
export interface Lonely extends KubernetesObject {
  spec?: { size?: number };
}
`,
  'src/api/v2/group.ts': `import { GROUP as EXAMPLE } from '../group.js';
/** @shaper:groupName */
export const GROUP = EXAMPLE;
/** @shaper:versionName */
export const VERSION = 'v2';
`,
  'src/api/v2/gadget.ts': `import type { KubernetesObject } from 'shaper-gen';
/** @shaper:resource */
export interface Gadget extends KubernetesObject {
  spec?: { dimensions?: { size?: number } };
}
`,
};

const HEAD = "import { Conversion } from 'shaper-gen';\nimport { GROUP } from './api/group.js';\n";
const SPOKES = 'readonly spokes = { v1: { toHub: (o: any) => o, fromHub: (o: any) => o } };';

/** A converter class in src/conversion.ts: the decorator on line 3, the class on line 4. */
const converter = (options: string, body = SPOKES, head = 'export class GadgetConversion') => `${HEAD}@Conversion(${options})\n${head} {\n  ${body}\n}\n`;

let project: FixtureProject;
let error: MockInstance;
const printed = (spy: MockInstance) => spy.mock.calls.map((call) => call.join(' ')).join('\n');

beforeEach(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  error = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  project.remove();
});

/** Runs manifests on the API and `files`; returns the diagnostics printed, having checked that nothing was written. */
async function problems(files: Record<string, string>): Promise<string[]> {
  project = createFixtureProject({ ...API, ...files });
  expect(await runManifests({}, project.dir)).toBe(1);
  expect(
    ['src/webhooks.generated.ts', 'charts/shaper-webhooks/templates/crds/example.com_gadgets.yaml', 'charts/shaper-webhooks/templates/_webhook-paths.tpl'].filter((file) =>
      existsSync(project.file(file)),
    ),
  ).toEqual([]);
  const lines = printed(error).split('\n');
  expect(lines.at(-1)).toBe(`shaper-gen: ${lines.length - 1} problem${lines.length === 2 ? '' : 's'}; nothing was written`);
  return lines.slice(0, -1);
}

describe('@Conversion declarations manifests refuses, at file:line:col, writing nothing', () => {
  it('options: unknown, missing and malformed', async () => {
    expect(
      await problems({
        'src/conversion.ts': converter("{ group: GROUP, kind: 'Gadget', hubVersion: 'v2' }"),
        'src/malformed.ts': converter("{ group: 'Example', kind: 'gadget', hub: 'V2', path: '/conversion' }", SPOKES, 'export class MalformedConversion'),
      }),
    ).toEqual([
      'src/conversion.ts:3:13: hub is required',
      'src/conversion.ts:3:57: unknown option "hubVersion"; known options: group, kind, hub, path',
      'src/malformed.ts:3:22: group "Example" must be a DNS subdomain such as example.com: conversion webhooks are for custom resources',
      'src/malformed.ts:3:39: kind "gadget" must be the kind\'s name in UpperCamelCase, e.g. "Profile"',
      'src/malformed.ts:3:54: "V2" is not a version name: a DNS label such as v1, v1beta1',
      'src/malformed.ts:3:66: path "/conversion" must be "/convert" or "/convert-<name>"',
    ]);
  });

  it('a kind no CRD is generated for, and a kind with one version', async () => {
    expect(
      await problems({
        'src/conversion.ts': converter("{ group: GROUP, kind: 'Widget', hub: 'v2' }"),
        'src/lonely.ts': converter("{ group: GROUP, kind: 'Lonely', hub: 'v1' }", 'readonly spokes = {};', 'export class LonelyConversion'),
      }),
    ).toEqual([
      "src/conversion.ts:3:35: no CRD for Widget in group example.com is generated from this project's types (kinds: Gadget (example.com), Lonely (example.com)); declare its versions with @shaper:resource",
      'src/lonely.ts:3:35: lonelies.example.com has one version (v1): there is nothing to convert until a second version is declared',
    ]);
  });

  it('a hub that is not a version of the CRD', async () => {
    expect(await problems({ 'src/conversion.ts': converter("{ group: GROUP, kind: 'Gadget', hub: 'v3' }") })).toEqual([
      'src/conversion.ts:3:50: hub v3 is not a version of gadgets.example.com (versions: v2, v1)',
    ]);
  });

  it('spokes: missing, missing a version, listing the hub, listing an unknown version', async () => {
    const options = "{ group: GROUP, kind: 'Gadget', hub: 'v2' }";
    expect(
      await problems({
        'src/a.ts': converter(options, 'readonly other = 1;', 'export class NoSpokes'),
        'src/b.ts': converter(options, 'readonly spokes = {};', 'export class MissingVersion'),
        'src/c.ts': converter(options, 'readonly spokes = { v1: {} as any, v2: {} as any };', 'export class ListsTheHub'),
        'src/d.ts': converter(options, 'readonly spokes = { v1: {} as any, v9: {} as any };', 'export class UnknownVersion'),
      }),
    ).toEqual([
      'src/a.ts:4:14: @Conversion class needs `readonly spokes = { <version>: { toHub, fromHub } }` for v1',
      'src/b.ts:5:21: spokes has no v1: every version of Gadget other than the hub v2 needs { toHub, fromHub }',
      'src/c.ts:5:38: spokes.v2: v2 is the hub; list only the other versions',
      'src/d.ts:5:38: spokes.v9: v9 is not a version of Gadget (versions: v2, v1)',
    ]);
  });

  it('two converters for one kind, and a class that is not exported', async () => {
    const options = "{ group: GROUP, kind: 'Gadget', hub: 'v2' }";
    expect(
      await problems({
        'src/conversion.ts': converter(options),
        'src/again.ts': converter(options, SPOKES, 'export class AgainConversion'),
        'src/hidden.ts': converter(options, SPOKES, 'class HiddenConversion'),
      }),
    ).toEqual([
      // Files are scanned in name order: src/again.ts comes first.
      'src/conversion.ts:4:14: Gadget (example.com) already has a converter, AgainConversion: a kind has one',
      'src/hidden.ts:4:7: class HiddenConversion with @Conversion must be a named export (export class …) so the server can register it',
    ]);
  });
});

describe('a @Conversion class in the chart', () => {
  beforeEach(async () => {
    project = createFixtureProject({ ...API, 'src/conversion.ts': converter("{ group: GROUP, kind: 'Gadget', hub: 'v2', path: '/convert-gadgets' }") });
    expect(await runManifests({}, project.dir)).toBe(0);
  });

  const CA_BUNDLE = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n').toString('base64');
  const service = (port = 443) => ({ name: 'shaper-shaper-webhooks', namespace: 'shaper-system', port, path: '/convert-gadgets' });
  const conversion = (clientConfig: Record<string, unknown>) => ({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig } });
  const KEEP = { 'helm.sh/resource-policy': 'keep' };
  const INJECT = { 'cert-manager.io/inject-ca-from': 'shaper-system/shaper-shaper-webhooks-serving-cert' };

  it('renders, by the pinned helm, the CRD’s spec.conversion and annotations for each way the chart is installed', async () => {
    const render = async (set: Record<string, unknown>) => {
      const crd = findObject(await helmTemplate(project.file('charts/shaper-webhooks'), { set }), 'CustomResourceDefinition', 'gadgets.example.com');
      return { annotations: crd.metadata.annotations, conversion: crd.spec.conversion };
    };
    expect({
      defaults: await render({}),
      ownCa: await render({ 'certManager.enabled': false, 'webhook.caBundle': CA_BUNDLE, 'service.port': 9443 }),
      url: await render({ 'certManager.enabled': false, 'webhook.caBundle': CA_BUNDLE, 'webhook.url': 'https://hooks.example.com:8443/' }),
      urlWithCertManager: await render({ 'webhook.url': 'https://hooks.example.com:8443' }),
      notKept: await render({ 'crds.keep': false }),
      notKeptOwnCa: await render({ 'crds.keep': false, 'certManager.enabled': false }),
    }).toEqual({
      defaults: { annotations: { ...KEEP, ...INJECT }, conversion: conversion({ service: service() }) },
      ownCa: { annotations: KEEP, conversion: conversion({ service: service(9443), caBundle: CA_BUNDLE }) },
      url: { annotations: KEEP, conversion: conversion({ url: 'https://hooks.example.com:8443/convert-gadgets', caBundle: CA_BUNDLE }) },
      urlWithCertManager: { annotations: { ...KEEP, ...INJECT }, conversion: conversion({ url: 'https://hooks.example.com:8443/convert-gadgets' }) },
      notKept: { annotations: INJECT, conversion: conversion({ service: service() }) },
      notKeptOwnCa: { annotations: undefined, conversion: conversion({ service: service() }) },
    });
  });

  it('lists the conversion path among the paths the server must serve, in a ServerConfig serve accepts, and exports the class as `conversions`', async () => {
    expect(project.read('charts/shaper-webhooks/templates/_webhook-paths.tpl')).toContain('{{- define "shaper-webhooks.webhookPaths" -}}\n- "/convert-gadgets"\n{{- end }}');
    const configMap = (await helmTemplate(project.file('charts/shaper-webhooks'))).find(
      (object) => object.kind === 'ConfigMap' && Object.values(object.data ?? {}).some((text) => String(text).includes('kind: ServerConfig')),
    );
    const serverConfig = Object.values(configMap!.data as Record<string, string>).find((text) => text.includes('kind: ServerConfig'))!;
    expect(parseServerConfig(serverConfig).expectedPaths).toEqual(['/convert-gadgets']);
    expect(project.read('src/webhooks.generated.ts')).toBe(`// Code generated by shaper-gen manifests; DO NOT EDIT.
// Every class decorated with @Webhook, for \`shaper-gen serve\` to register.
// Regenerate with \`shaper-gen manifests\`; CI checks freshness with \`--check\`.
import { GadgetConversion } from "./conversion.js";

export const webhooks = [
] as const;

export const conversions = [
  GadgetConversion,
] as const;
`);
  });
});
