/**
 * `shaper-gen create api` in throwaway projects: the files it writes for a new
 * kind, a second version and an existing API package, then `shaper-gen
 * manifests` and the chart rendered by the pinned helm; and each refusal as
 * the one line the user sees, with nothing written.
 */
import { readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { CreateApiFlags } from 'shaper-gen/internal/generator';
import { runCreateApiCommand } from '../../../generator/src/create/run-create-api.js';
import { runManifests } from '../../../generator/src/manifests/run-manifests.js';
import { createFixtureProject, type FixtureProject } from '../../support/fixture-project.js';
import { findObject, helmLint, helmTemplate } from '../../support/helm.js';

let project: FixtureProject;
let log: MockInstance;
let error: MockInstance;
const lines = (spy: MockInstance) => spy.mock.calls.map((call) => call.join(' '));
const chart = () => project.file('charts/shaper-webhooks');
const GUESTBOOK = { group: 'webapp.example.com', version: 'v1', kind: 'Guestbook' } as const;

/** Every file under the project's src/, sorted. */
function sourceFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(project.file(dir), { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`]));
  return walk('src').sort();
}

async function createApi(flags: CreateApiFlags): Promise<{ code: number; out: string[]; err: string[] }> {
  log.mockClear();
  error.mockClear();
  const code = await runCreateApiCommand(flags, project.dir);
  return { code, out: lines(log), err: lines(error) };
}

/** The generated schema of the scaffolded kind, as the API server receives it. */
function scaffoldedSchema(apiVersion: string, kind: string): Record<string, unknown> {
  return {
    type: 'object',
    description: `A ${kind} (${apiVersion}).`,
    properties: {
      apiVersion: { type: 'string', description: `The API group and version of this object: ${apiVersion}.` },
      kind: { type: 'string', description: `The kind of this object: ${kind}.` },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        description: `The desired state of a ${kind}.`,
        properties: { foo: { type: 'string', description: 'An example field: replace it with the fields of your API.', maxLength: 64 } },
      },
      status: {
        type: 'object',
        description: `The observed state of a ${kind}.`,
        properties: { observedGeneration: { type: 'integer', description: 'The metadata.generation this status describes.', minimum: 0 } },
      },
    },
  };
}

beforeEach(() => {
  project = createFixtureProject({});
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
  error = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  project.remove();
});

describe('a new kind', () => {
  it('gets its API package, its interface and two webhooks with tests; manifests writes its CRD, which helm renders and lints', async () => {
    expect(await createApi({ ...GUESTBOOK, validator: true, defaulter: true })).toEqual({
      code: 0,
      out: [
        'shaper-gen create api: Guestbook webapp.example.com/v1 (namespaced, resource guestbooks)',
        '  wrote src/api/webapp/v1/groupversion.ts',
        '  wrote src/api/webapp/v1/guestbook.ts',
        '  wrote src/webhooks/webapp/v1/guestbook-validator.ts',
        '  wrote src/webhooks/webapp/v1/guestbook-validator.test.ts',
        '  wrote src/webhooks/webapp/v1/guestbook-defaulter.ts',
        '  wrote src/webhooks/webapp/v1/guestbook-defaulter.test.ts',
        "next: describe GuestbookSpec and GuestbookStatus in src/api/webapp/v1/guestbook.ts (fields, @shaper: markers), then npx shaper-gen manifests writes charts/shaper-webhooks/templates/crds/webapp.example.com_guestbooks.yaml; npm test runs the webhooks' tests",
      ],
      err: [],
    });
    expect(project.read('src/api/webapp/v1/groupversion.ts')).toContain(
      "@shaper:groupName\n */\nexport const GROUP = 'webapp.example.com';\n/** @shaper:versionName */\nexport const VERSION = 'v1';\n",
    );
    expect(project.read('src/webhooks/webapp/v1/guestbook-validator.ts')).toContain(
      "import { GROUP, VERSION } from '../../../api/webapp/v1/groupversion.js';\nimport type { Guestbook } from '../../../api/webapp/v1/guestbook.js';\n",
    );

    expect(await runManifests({}, project.dir)).toBe(0);
    expect(await helmLint(chart())).toContain('1 chart(s) linted, 0 chart(s) failed');
    const objects = await helmTemplate(chart(), { release: 'shaper', namespace: 'shaper-system' });
    expect(findObject(objects, 'CustomResourceDefinition', 'guestbooks.webapp.example.com').spec).toEqual({
      group: 'webapp.example.com',
      names: { kind: 'Guestbook', listKind: 'GuestbookList', plural: 'guestbooks', singular: 'guestbook' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: scaffoldedSchema('webapp.example.com/v1', 'Guestbook') } }],
    });
    const rulesOf = (kind: string) =>
      findObject(objects, kind).webhooks.map((w: { clientConfig: { service: { path: string } }; rules: unknown }) => ({ path: w.clientConfig.service.path, rules: w.rules }));
    const rules = [{ apiGroups: ['webapp.example.com'], apiVersions: ['v1'], resources: ['guestbooks'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }];
    expect(rulesOf('ValidatingWebhookConfiguration')).toEqual([{ path: '/validate-webapp-example-com-v1-guestbook', rules }]);
    expect(rulesOf('MutatingWebhookConfiguration')).toEqual([{ path: '/mutate-webapp-example-com-v1-guestbook', rules }]);
  });

  it('cluster-scoped with its own plural, and no webhooks unless asked', async () => {
    expect(await createApi({ group: 'infra.example.com', version: 'v1alpha1', kind: 'Gateway', cluster: true, plural: 'gatewayz' })).toMatchObject({ code: 0, err: [] });
    expect(sourceFiles()).toEqual(['src/api/infra/v1alpha1/gateway.ts', 'src/api/infra/v1alpha1/groupversion.ts']);
    expect(project.read('src/api/infra/v1alpha1/gateway.ts')).toContain(' * @shaper:resource scope=Cluster plural=gatewayz\n');
    expect(await runManifests({}, project.dir)).toBe(0);
    const crd = findObject(await helmTemplate(chart()), 'CustomResourceDefinition', 'gatewayz.infra.example.com');
    expect({ scope: crd.spec.scope, names: crd.spec.names }).toEqual({ scope: 'Cluster', names: { kind: 'Gateway', listKind: 'GatewayList', plural: 'gatewayz', singular: 'gateway' } });
  });

  it("joins the API package that already declares its group and version, and its webhook imports that package's consts", async () => {
    project.write('src/model/group.ts', "/** @shaper:groupName */\nexport const API_GROUP = 'shop.example.com';\n");
    project.write('src/model/version.ts', "/** @shaper:versionName */\nexport const API_VERSION = 'v2';\n");
    expect(await createApi({ group: 'shop.example.com', version: 'v2', kind: 'Order', validator: true })).toMatchObject({ code: 0, err: [] });
    expect(sourceFiles()).toEqual(['src/model/group.ts', 'src/model/order.ts', 'src/model/version.ts', 'src/webhooks/shop/v2/order-validator.test.ts', 'src/webhooks/shop/v2/order-validator.ts']);
    expect(project.read('src/webhooks/shop/v2/order-validator.ts')).toContain(
      "import { API_GROUP } from '../../../model/group.js';\nimport { API_VERSION } from '../../../model/version.js';\nimport type { Order } from '../../../model/order.js';\n",
    );
    expect(project.read('src/webhooks/shop/v2/order-validator.ts')).toContain('rules: [{ groups: [API_GROUP], versions: [API_VERSION], ');
    expect(await runManifests({}, project.dir)).toBe(0);
    expect(findObject(await helmTemplate(chart()), 'ValidatingWebhookConfiguration').webhooks[0].rules[0]).toMatchObject({ apiGroups: ['shop.example.com'], apiVersions: ['v2'] });
  });
});

describe('a second version of a kind', () => {
  it('gets a package of its own with the names and scope of the first; manifests asks for the storage version, then joins both into one CRD', async () => {
    expect(await createApi({ group: 'infra.example.com', version: 'v1alpha1', kind: 'Gateway', cluster: true, plural: 'gatewayz' })).toMatchObject({ code: 0 });
    expect(await createApi({ group: 'infra.example.com', version: 'v1beta1', kind: 'Gateway' })).toEqual({
      code: 0,
      out: [
        'shaper-gen create api: Gateway infra.example.com/v1beta1 (cluster-scoped, resource gatewayz)',
        '  wrote src/api/infra/v1beta1/groupversion.ts',
        '  wrote src/api/infra/v1beta1/gateway.ts',
        'next: describe GatewaySpec and GatewayStatus in src/api/infra/v1beta1/gateway.ts (fields, @shaper: markers), then npx shaper-gen manifests writes charts/shaper-webhooks/templates/crds/infra.example.com_gatewayz.yaml',
        '  Gateway now has versions v1alpha1 (src/api/infra/v1alpha1/gateway.ts:24:4), v1beta1: mark the one etcd stores with @shaper:storageversion on its interface; manifests refuses the CRD until exactly one is marked',
        '  the versions are served with conversion: None (only apiVersion changes) until a @Conversion class converts them: once their schemas differ, shaper-gen create conversion --group infra.example.com --kind Gateway --hub <version> writes one with its test (guide: conversion webhooks)',
      ],
      err: [],
    });
    expect(project.read('src/api/infra/v1beta1/gateway.ts')).toContain(' * @shaper:resource scope=Cluster plural=gatewayz\n');

    log.mockClear();
    expect(await runManifests({}, project.dir)).toBe(1);
    expect(lines(error)).toEqual([
      'src/api/infra/v1beta1/gateway.ts:24:4: Gateway has several versions (v1beta1, v1alpha1): mark the one stored in etcd with @shaper:storageversion',
      'shaper-gen: 1 problem; nothing was written',
    ]);
    const kindFile = 'src/api/infra/v1beta1/gateway.ts';
    project.write(kindFile, project.read(kindFile).replace(' * @shaper:subresource status\n', ' * @shaper:subresource status\n * @shaper:storageversion\n'));
    expect(await runManifests({}, project.dir)).toBe(0);
    expect(await helmLint(chart())).toContain('0 chart(s) failed');
    const crd = findObject(await helmTemplate(chart()), 'CustomResourceDefinition', 'gatewayz.infra.example.com');
    expect(crd.spec).toEqual({
      group: 'infra.example.com',
      names: { kind: 'Gateway', listKind: 'GatewayList', plural: 'gatewayz', singular: 'gateway' },
      scope: 'Cluster',
      versions: ['v1beta1', 'v1alpha1'].map((version) => ({
        name: version,
        served: true,
        storage: version === 'v1beta1',
        subresources: { status: {} },
        schema: { openAPIV3Schema: scaffoldedSchema(`infra.example.com/${version}`, 'Gateway') },
      })),
    });
  });
});

describe('webhooks of two versions', () => {
  it('get their own paths, and the handlers module imports both classes of one name', async () => {
    await createApi({ ...GUESTBOOK, version: 'v1alpha1', validator: true, defaulter: true });
    await createApi({ ...GUESTBOOK, validator: true, defaulter: true });
    const kindFile = 'src/api/webapp/v1/guestbook.ts';
    project.write(kindFile, project.read(kindFile).replace(' * @shaper:subresource status\n', ' * @shaper:subresource status\n * @shaper:storageversion\n'));
    expect(await runManifests({}, project.dir)).toBe(0);
    const objects = await helmTemplate(chart());
    const paths = (kind: string) =>
      findObject(objects, kind).webhooks.map((w: { clientConfig: { service: { path: string } }; rules: { apiVersions: string[] }[] }) => [w.clientConfig.service.path, w.rules[0]!.apiVersions]);
    expect(paths('ValidatingWebhookConfiguration')).toEqual([
      ['/validate-webapp-example-com-v1-guestbook', ['v1']],
      ['/validate-webapp-example-com-v1alpha1-guestbook', ['v1alpha1']],
    ]);
    expect(paths('MutatingWebhookConfiguration')).toEqual([
      ['/mutate-webapp-example-com-v1-guestbook', ['v1']],
      ['/mutate-webapp-example-com-v1alpha1-guestbook', ['v1alpha1']],
    ]);
    expect(project.read('src/webhooks.generated.ts').match(/^import .*$/gm)).toHaveLength(4);
  });
});

describe("a package outside the generator's sources", () => {
  it('is written, and the output says manifests will not read it', async () => {
    const { code, out } = await createApi({ ...GUESTBOOK, dir: 'lib/api' });
    expect(code).toBe(0);
    expect(out).toContain("  not among the generator's sources, so manifests will not read them: lib/api/groupversion.ts, lib/api/guestbook.ts; add their directory to sources in shaper.yaml");
  });
});

describe('refusals: one line with the fix, exit 2, nothing written', () => {
  const refused = async (flags: CreateApiFlags, before: () => Promise<unknown> = async () => {}) => {
    await before();
    const files = sourceFiles();
    const result = await createApi(flags);
    expect(sourceFiles()).toEqual(files);
    return result;
  };
  const once = () => createApi(GUESTBOOK);

  it('a name the API server would refuse', async () => {
    project.write('src/keep.ts', 'export {};\n');
    expect(await refused({ ...GUESTBOOK, version: '1.0' })).toEqual({
      code: 2,
      out: [],
      err: ['shaper-gen create api: --version: the version "1.0" must be v<N>, v<N>alpha<M> or v<N>beta<M>, like v1, v1alpha1 or v1beta2'],
    });
  });

  it('a kind and version that exist', async () => {
    expect(await refused(GUESTBOOK, once)).toEqual({
      code: 2,
      out: [],
      err: ['shaper-gen create api: Guestbook webapp.example.com/v1 is already declared at src/api/webapp/v1/guestbook.ts:24:4; pass another --version to add a version of it'],
    });
  });

  it('a file that exists, even one the scan does not see as a kind', async () => {
    project.write('src/webhooks/webapp/v1/guestbook-defaulter.ts', 'export {};\n');
    expect(await refused({ ...GUESTBOOK, defaulter: true })).toEqual({
      code: 2,
      out: [],
      err: ['shaper-gen create api: src/webhooks/webapp/v1/guestbook-defaulter.ts exists and create api never overwrites: move it away, or pass another --kind, --version or --dir'],
    });
  });

  it("a second version that contradicts the first one's scope or plural", async () => {
    expect(await refused({ ...GUESTBOOK, version: 'v2', cluster: true }, once)).toEqual({
      code: 2,
      out: [],
      err: ['shaper-gen create api: Guestbook v1 (src/api/webapp/v1/guestbook.ts:24:4) is Namespaced, and every version of a kind has the same scope: drop --cluster'],
    });
    expect((await refused({ ...GUESTBOOK, version: 'v2', plural: 'books' })).err).toEqual([
      'shaper-gen create api: Guestbook v1 (src/api/webapp/v1/guestbook.ts:24:4) has the plural "guestbooks", and every version of a kind has the same names: drop --plural',
    ]);
  });

  it('a plural another kind of the group has', async () => {
    expect((await refused({ ...GUESTBOOK, kind: 'GuestBook' }, once)).err).toEqual([
      'shaper-gen create api: Guestbook (src/api/webapp/v1/guestbook.ts:24:4) already has the plural "guestbooks" in webapp.example.com; pass --plural with another one',
    ]);
  });

  it('a directory that declares another group or version, or lies outside the project', async () => {
    expect((await refused({ ...GUESTBOOK, group: 'other.example.com', dir: 'src/api/webapp/v1' }, once)).err).toEqual([
      'shaper-gen create api: src/api/webapp/v1/ is the API package of group "webapp.example.com" (src/api/webapp/v1/groupversion.ts:4:4), not other.example.com; pass --dir with another directory',
    ]);
    expect((await refused({ ...GUESTBOOK, kind: 'Gateway', dir: '../elsewhere' })).err).toEqual([
      `shaper-gen create api: --dir ../elsewhere is outside the project (${project.dir}); pass a directory under it`,
    ]);
  });
});
