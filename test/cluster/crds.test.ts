/**
 * Generated CRDs against the real kube-apiserver (etcd and kube-apiserver
 * only): every CRD the sample's chart and a fixture project render is
 * created with strict field validation, becomes Established, and reads back
 * with the schema, columns and subresources as generated; the schema's
 * rules are then the API server's (enum, pattern, CEL, list-map keys,
 * defaults, pruning); a kind's versions are served as declared; and the
 * chart installs its CRDs with helm, keeps them on uninstall, updates them
 * on upgrade and lets the uninstall delete them with crds.keep=false.
 *
 * The sample's cluster scenarios (webhooks.test.ts, node.test.ts) run on
 * these same generated CRDs (test/kindenv/sample.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runManifests } from '../../generator/src/manifests/run-manifests.js';
import { startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { tool } from '../../support/kindenv/tools.js';
import { EXAMPLE_GROUP, GAUGE, WIDGET } from '../support/crd-fixture-sources.js';
import { createFixtureProject, REPO_ROOT, type FixtureProject } from '../support/fixture-project.js';
import { helmTemplate, type K8sObject } from '../support/helm.js';
import { rawClient, type RawClient } from '../support/raw-client.js';

const run = promisify(execFile);
const log = (line: string) => process.stderr.write(`crds: ${line}\n`);

const gizmo = (version: string, markers: string, spec: string) => ({
  [`src/api/${version}/group.ts`]: `/** @shaper:groupName */\nexport const GROUP = 'example.com';\n/** @shaper:versionName */\nexport const VERSION = '${version}';\n`,
  [`src/api/${version}/gizmo.ts`]: `import type { KubernetesObject } from 'shaper-gen';\n/**\n * A gizmo, ${version}.\n * @shaper:resource shortName=gz\n${markers}\n */\nexport interface Gizmo extends KubernetesObject { spec?: { ${spec} } }\n`,
});

/** A project with the Widget and Gauge kinds and three versions of Gizmo (a fixture project's chart has no CRD of the sample's). */
const FIXTURE = {
  'src/api/group.ts': EXAMPLE_GROUP,
  'src/api/widget.ts': WIDGET,
  'src/api/gauge.ts': GAUGE,
  ...gizmo('v1beta1', ' * @shaper:storageversion', 'size?: number'),
  ...gizmo('v1alpha1', ' * @shaper:deprecatedversion warning="example.com/v1alpha1 Gizmo is deprecated; use v1beta1"', 'big?: boolean'),
  ...gizmo('v1alpha2', ' * @shaper:unservedversion', 'big?: boolean'),
};

/** A kind of its own group for the helm scenario, so that its CRD is the release's alone. */
const GADGET = (extra: string) => ({
  'src/gadgets/group.ts': `/** @shaper:groupName */\nexport const GROUP = 'gadgets.example.com';\n/** @shaper:versionName */\nexport const VERSION = 'v1';\n`,
  'src/gadgets/gadget.ts': `import type { KubernetesObject } from 'shaper-gen';\n/** @shaper:resource */\nexport interface Gadget extends KubernetesObject { spec?: { name?: string;${extra} } }\n`,
});

let dir: string | undefined;
let controlPlane: ControlPlane | undefined;
let project: FixtureProject | undefined;
let gadgets: FixtureProject | undefined;
let api: RawClient | undefined;
let generated: K8sObject[] = [];

async function generate(target: FixtureProject): Promise<K8sObject[]> {
  const quiet = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    expect(await runManifests({}, target.dir)).toBe(0);
  } finally {
    quiet.mockRestore();
  }
  return (await helmTemplate(target.file('charts/shaper-webhooks'))).filter((o) => o.kind === 'CustomResourceDefinition');
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-crds-'));
  project = createFixtureProject(FIXTURE);
  const [plane, fixtureCrds] = await Promise.all([startControlPlane({ dir, hostAddress: '127.0.0.1', log, certManager: false }), generate(project)]);
  controlPlane = plane;
  api = rawClient(plane);
  const sampleCrds = (await helmTemplate(path.join(REPO_ROOT, 'charts/shaper-webhooks'))).filter((o) => o.kind === 'CustomResourceDefinition');
  generated = [...sampleCrds, ...fixtureCrds];
});

afterAll(async () => {
  api?.close();
  await controlPlane?.stop();
  project?.remove();
  gadgets?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('every generated CRD', () => {
  it('is created with strict field validation, becomes Established, and reads back as generated', async () => {
    expect(generated.map((crd) => crd.metadata.name).sort()).toEqual(['assignments.shaper.io', 'gaugez.example.com', 'gizmos.example.com', 'profiles.shaper.io', 'widgets.example.com']);
    for (const crd of generated) {
      const created = await api!.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldValidation=Strict', crd);
      expect(created.status, `${crd.metadata.name}: ${created.text}`).toBe(201);
      expect(created.headers.warning, crd.metadata.name).toBeUndefined();
    }
    for (const crd of generated) {
      const stored = await waitFor(
        `${crd.metadata.name} to be Established`,
        async () => {
          const read = (await api!.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`)).json as K8sObject;
          const established = (read.status?.conditions as { type: string; status: string }[] | undefined)?.some((c) => c.type === 'Established' && c.status === 'True');
          return established ? read : undefined;
        },
        30_000,
      );
      expect(stored.spec.names, crd.metadata.name).toEqual(crd.spec.names);
      expect(stored.spec.scope).toBe(crd.spec.scope);
      expect(stored.spec.group).toBe(crd.spec.group);
      expect(stored.status.acceptedNames).toEqual(crd.spec.names);
      // As rendered (the sample's Profile converts through its webhook), with the API server's own default (None) elsewhere; every version as rendered.
      expect(stored.spec.conversion).toEqual(crd.spec.conversion ?? { strategy: 'None' });
      expect(stored.spec.versions, crd.metadata.name).toEqual(crd.spec.versions);
    }
  });
});

describe("the schema's rules, as the API server applies them", () => {
  const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });
  const create = (body: object) => api!.request('POST', '/apis/example.com/v1/widgets', body);

  it('admits a Widget: defaults applied, undeclared fields pruned, preserved ones kept, int-or-string either way', async () => {
    const response = await create(
      widget('ok', {
        size: 'small',
        aliases: ['a', 'b'],
        ports: [
          { name: 'http', port: 80 },
          { name: 'admin', port: 9000, protocol: 'UDP' },
        ],
        nicknames: ['c'],
        owners: ['d'],
        teams: { red: 'e' },
        quota: '2Gi',
        limits: { cpu: 2, memory: '1Gi' },
        extra: { anything: [1, { deep: true }] },
        settings: { free: 'form' },
        template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } },
        note: null,
        undeclared: 'pruned',
      }),
    );
    expect(response.status, response.text).toBe(201);
    expect((response.json as K8sObject).spec).toEqual({
      size: 'small',
      replicas: 1,
      aliases: ['a', 'b'],
      ports: [
        { name: 'http', port: 80 },
        { name: 'admin', port: 9000, protocol: 'UDP' },
      ],
      nicknames: ['c'],
      owners: ['d'],
      teams: { red: 'e' },
      quota: '2Gi',
      limits: { cpu: 2, memory: '1Gi' },
      extra: { anything: [1, { deep: true }] },
      settings: { free: 'form' },
      template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } },
      note: null,
    });
  });

  it('refuses what the markers forbid, with the messages the API server words', async () => {
    const refusals: Record<string, Record<string, unknown>> = {
      enum: { size: 'huge' },
      maximum: { size: 'small', replicas: 11 },
      exclusiveMinimum: { size: 'small', ratio: 0 },
      pattern: { size: 'small', aliases: ['A'] },
      set: { size: 'small', aliases: ['a', 'a'] },
      'pattern through an alias': { size: 'small', nicknames: ['A'] },
      'maxItems of an alias': { size: 'small', nicknames: ['a', 'b', 'c', 'd'] },
      'pattern through a generic alias': { size: 'small', owners: ['B'] },
      'pattern through a generic map alias': { size: 'small', teams: { red: 'C' } },
      'list-map key': {
        size: 'small',
        ports: [
          { name: 'http', port: 80 },
          { name: 'http', port: 81 },
        ],
      },
      'rule on the kind': { size: 'large' },
      'rule on a field': { size: 'small', comment: 'x'.repeat(101) },
      'embedded resource without kind': { size: 'small', template: { apiVersion: 'v1', metadata: { name: 'c' } } },
    };
    const messages: Record<string, string> = {};
    for (const [name, spec] of Object.entries(refusals)) {
      const response = await create(widget(`refused-${Object.keys(messages).length}`, spec));
      expect(response.status, `${name}: ${response.text}`).toBe(422);
      messages[name] = (response.json as { message: string }).message.replace(/^Widget\.example\.com "refused-\d+" is invalid: /, '');
    }
    // Where a rule of the kind cannot run because a field is already invalid, the API server says so (1.35).
    const skipped = '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
    expect(messages).toEqual({
      enum: `[spec.size: Unsupported value: "huge": supported values: "small", "medium", "large", ${skipped}]`,
      maximum: 'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      exclusiveMinimum: 'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
      pattern: 'spec.aliases[0]: Invalid value: "A": spec.aliases[0] in body should match \'^[a-z]+$\'',
      set: 'spec.aliases[1]: Duplicate value: "a"',
      'pattern through an alias': 'spec.nicknames[0]: Invalid value: "A": spec.nicknames[0] in body should match \'^[a-z]+$\'',
      'maxItems of an alias': `[spec.nicknames: Too many: 4: must have at most 3 items, ${skipped}]`,
      'pattern through a generic alias': 'spec.owners[0]: Invalid value: "B": spec.owners[0] in body should match \'^[a-z]+$\'',
      'pattern through a generic map alias': 'spec.teams.red: Invalid value: "C": spec.teams.red in body should match \'^[a-z]+$\'',
      'list-map key': 'spec.ports[1]: Duplicate value: {"name":"http"}',
      'rule on the kind': '<nil>: Invalid value: a large widget needs ports',
      'rule on a field': `spec.comment: Invalid value: "${'x'.repeat(101)}": too long`,
      'embedded resource without kind': `[spec.template.kind: Required value, ${skipped}]`,
    });
  });
});

describe("a kind's versions", () => {
  it('are served as declared: v1beta1 stored, v1alpha1 deprecated with its warning, v1alpha2 not served', async () => {
    const gizmo = { apiVersion: 'example.com/v1alpha1', kind: 'Gizmo', metadata: { name: 'g', namespace: 'default' }, spec: { big: true } };
    const old = await api!.request('POST', '/apis/example.com/v1alpha1/namespaces/default/gizmos', gizmo);
    expect(old.status, old.text).toBe(201);
    expect(old.headers.warning).toBe('299 - "example.com/v1alpha1 Gizmo is deprecated; use v1beta1"');
    const current = await api!.request('GET', '/apis/example.com/v1beta1/namespaces/default/gizmos/g');
    expect(current.status, current.text).toBe(200);
    expect((await api!.request('GET', '/apis/example.com/v1alpha2/namespaces/default/gizmos')).status).toBe(404);
    const crd = (await api!.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com')).json as K8sObject;
    expect(crd.status.storedVersions).toEqual(['v1beta1']);
  });
});

describe('CRDs installed by the chart (helm install, upgrade, uninstall)', () => {
  const helm = async (...args: string[]) => (await run(tool('helm'), [...args, '--kubeconfig', controlPlane!.kubeconfigPath], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  const chart = () => gadgets!.file('charts/shaper-webhooks');
  const install = ['--namespace', 'gadgets', '--set', 'certManager.enabled=false'];
  const readCrd = async () => {
    const response = await api!.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.gadgets.example.com');
    return response.status === 404 ? undefined : (response.json as K8sObject);
  };

  it('creates the CRD, keeps it on uninstall, adopts it again, updates its schema on upgrade, and deletes it on uninstall with crds.keep=false', async () => {
    gadgets = createFixtureProject(GADGET(''));
    await generate(gadgets);
    await helm('install', 'gadgets', chart(), ...install, '--create-namespace');
    const installed = await readCrd();
    expect(installed?.metadata.annotations).toMatchObject({ 'helm.sh/resource-policy': 'keep', 'meta.helm.sh/release-name': 'gadgets', 'meta.helm.sh/release-namespace': 'gadgets' });
    expect(installed?.metadata.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'Helm' });

    await helm('uninstall', 'gadgets', '--namespace', 'gadgets');
    expect(await readCrd(), 'kept on uninstall').toBeDefined();

    await helm('install', 'gadgets', chart(), ...install);
    gadgets.write('src/gadgets/gadget.ts', GADGET(' size?: number;')['src/gadgets/gadget.ts']);
    await generate(gadgets);
    await helm('upgrade', 'gadgets', chart(), ...install, '--set', 'crds.keep=false');
    const upgraded = await readCrd();
    expect(upgraded?.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties).toEqual({ name: { type: 'string' }, size: { type: 'integer' } });
    expect(upgraded?.metadata.annotations?.['helm.sh/resource-policy']).toBeUndefined();

    await helm('uninstall', 'gadgets', '--namespace', 'gadgets');
    await waitFor('the CRD to be deleted', async () => ((await readCrd()) === undefined ? true : undefined), 30_000);
  });
});
