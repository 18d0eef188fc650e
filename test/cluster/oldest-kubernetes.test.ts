/**
 * Both ends of the supported Kubernetes range (README.md, "Supported
 * Kubernetes versions"): a bare control plane — etcd and kube-apiserver, no
 * node, no cert-manager — of the oldest supported minor
 * (OLDEST_KUBERNETES_VERSION in scripts/cluster/versions.env) and one of the
 * pinned minor, side by side.
 *
 * What goes in is what a user installs: the webhook configurations of
 * charts/shaper-webhooks as the pinned helm renders them (in-cluster Service
 * with cert-manager's annotation; external URL with a CA bundle) and its
 * ValidatingAdmissionPolicies with their bindings, those of a
 * project whose webhooks set every option the generator writes into a
 * configuration, matchConditions included, and the sample's CRDs as its chart
 * renders them (generated from sample/api/). Each object
 * is dry-run created, then server-side applied, both with strict field
 * validation and without a warning; what the API server stores (read back
 * with GET) must be the object sent, complete, plus only the defaults listed
 * here — the same on both ends.
 *
 * The limit of the range: the generator type-checks matchConditions against
 * the newest Kubernetes CEL libraries, and an API server compiles a new
 * expression only with the libraries of the minor before its own
 * (k8s.io/apiserver pkg/cel/environment, DefaultCompatibilityVersion). Conditions
 * that use a library from after the oldest minor are accepted by the
 * generator and the pinned API server, refused by the oldest: README.md says so.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGeneratorConfig } from '../../generator/src/config.js';
import { generateManifests } from '../../generator/src/manifests/manifests.js';
import { writeGeneratedFiles } from '../../generator/src/manifests/output.js';
import { rawRequest, startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { oldestApiServer, pinnedVersions, tool } from '../../support/kindenv/tools.js';
import { createFixtureProject, REPO_ROOT } from '../support/fixture-project.js';
import { helmTemplate, type K8sObject } from '../support/helm.js';
import { createTestCA } from '../../support/pki.js';

const CONFIGURATION_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
const POLICY_KINDS = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
const RESOURCES: Record<string, string> = {
  ValidatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
  MutatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
  ValidatingAdmissionPolicy: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
  CustomResourceDefinition: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
};
const FIELD_MANAGER = 'shaper-gen-support-range';
const run = promisify(execFile);

/** A project whose two webhooks set every option that goes into a configuration (rbac and cache do not). */
const EVERY_OPTION_SOURCE = `import { Webhook } from 'shaper-gen';

@Webhook({
  path: '/mutate-widget',
  mutating: true,
  name: 'default-widget.example.com',
  configuration: 'widgets',
  rules: [
    { groups: ['example.com'], versions: ['v1', 'v1beta1'], resources: ['widgets', 'widgets/scale'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' },
    { groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'], scope: '*' },
  ],
  failurePolicy: 'Ignore',
  sideEffects: 'NoneOnDryRun',
  timeoutSeconds: 3,
  matchPolicy: 'Exact',
  reinvocationPolicy: 'IfNeeded',
  admissionReviewVersions: ['v1', 'v1beta1'],
  namespaceSelector: { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] },
  objectSelector: { matchExpressions: [{ key: 'skip-webhook', operator: 'DoesNotExist' }] },
  matchConditions: [
    { name: 'not-system-users', expression: "!request.userInfo.username.startsWith('system:')" },
    { name: 'labelled', expression: "has(object.metadata.labels) && 'team' in object.metadata.labels" },
  ],
})
export class WidgetDefaulter {
  default() {}
}

@Webhook({
  path: '/validate-widget',
  mutating: false,
  rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE', 'DELETE'], scope: 'Cluster' }],
  failurePolicy: 'Fail',
  sideEffects: 'None',
  timeoutSeconds: 30,
  matchPolicy: 'Equivalent',
  matchConditions: [{ name: 'not-dry-run', expression: '!request.dryRun' }],
})
export class WidgetValidator {
  validateCreate() {}
}
`;

/**
 * CEL libraries an API server of the oldest supported minor does not offer to new expressions, each with the
 * first minor that does: the library's IntroducedVersion in k8s.io/apiserver v0.37.2 pkg/cel/environment/base.go,
 * plus one (new expressions compile at the minor before the server's). Only "refused by the oldest, accepted by the
 * pinned" is tested.
 */
const NEWER_CEL: readonly { configuration: string; expression: string; since: string }[] = [
  { configuration: 'cel-ip', expression: "ip('10.0.0.1').family() == 4", since: '1.31' },
  { configuration: 'cel-format', expression: "format.named('dns1123Label').hasValue()", since: '1.32' },
  { configuration: 'cel-two-variable', expression: "{'a': 1}.all(k, v, v > 0)", since: '1.33' },
  { configuration: 'cel-semver', expression: "isSemver('1.0.0') && semver('1.2.3').major() == 1", since: '1.34' },
  { configuration: 'cel-lists', expression: 'lists.range(3).size() == 3', since: '1.35' },
];
const NEWER_CEL_SOURCE = [
  "import { Webhook } from 'shaper-gen';",
  ...NEWER_CEL.map(
    ({ configuration, expression }, i) => `
@Webhook({
  path: '/validate-${configuration}',
  mutating: false,
  configuration: '${configuration}',
  rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE'] }],
  matchConditions: [{ name: 'newer-cel', expression: ${JSON.stringify(expression)} }],
})
export class NewerCel${i} {
  validateCreate() {}
}`,
  ),
].join('\n');

interface End {
  readonly label: string;
  readonly version: string;
  readonly binary: string;
  controlPlane?: ControlPlane;
}

const versions = pinnedVersions();
const ends: End[] = [
  { label: 'oldest supported', ...oldestApiServer() },
  { label: 'pinned', version: versions.KUBERNETES_VERSION, binary: tool('kube-apiserver') },
];
const objects: { source: string; object: K8sObject }[] = [];
/** The configurations of NEWER_CEL, as the generator and helm write them. */
const newerCel: { since: string; object: K8sObject }[] = [];
let dir: string | undefined;

const log = (line: string) => process.stderr.write(`support-range: ${line}\n`);

/** The chart's webhook configurations, and with `all` its policies, bindings and CRDs too (their names do not depend on the release). */
async function chartObjects(chartDir: string, release: string, values: Record<string, unknown>, all = false): Promise<K8sObject[]> {
  return (await helmTemplate(chartDir, { release, namespace: 'shaper-system', set: values })).filter(
    (o) => CONFIGURATION_KINDS.has(o.kind) || (all && (POLICY_KINDS.has(o.kind) || o.kind === 'CustomResourceDefinition')),
  );
}

async function renderEverything(): Promise<{ supported: { source: string; object: K8sObject }[]; newer: { since: string; object: K8sObject }[] }> {
  const ca = await createTestCA('support range test CA');
  const sampleChart = path.join(REPO_ROOT, 'charts/shaper-webhooks');
  const urlValues = {
    'certManager.enabled': false,
    'webhook.url': 'https://webhooks.example.com:8443/hooks',
    'webhook.caBundle': Buffer.from(ca.cert).toString('base64'),
  };
  const rendered = [
    ...(await chartObjects(sampleChart, 'shaper', {}, true)).map((object) => ({ source: 'sample chart, Service', object })),
    ...(await chartObjects(sampleChart, 'shaper-url', urlValues)).map((object) => ({ source: 'sample chart, URL', object })),
  ];
  const project = createFixtureProject({ 'src/widgets.ts': EVERY_OPTION_SOURCE, 'src/newer-cel.ts': NEWER_CEL_SOURCE });
  const newer: { since: string; object: K8sObject }[] = [];
  try {
    writeGeneratedFiles((await generateManifests(loadGeneratorConfig(undefined, project.dir))).files);
    const chart = project.file('charts/shaper-webhooks');
    const sinceOf = (object: K8sObject) => NEWER_CEL.find((c) => object.metadata.name === `every-shaper-webhooks-${c.configuration}`)?.since;
    for (const object of await chartObjects(chart, 'every', {})) {
      const since = sinceOf(object);
      if (since) newer.push({ since, object });
      else rendered.push({ source: 'every option, Service', object });
    }
    for (const object of await chartObjects(chart, 'every-url', urlValues)) {
      if (!object.metadata.name.startsWith('every-url-shaper-webhooks-cel-')) rendered.push({ source: 'every option, URL', object });
    }
  } finally {
    project.remove();
  }
  if (newer.length !== NEWER_CEL.length) throw new Error(`rendered ${newer.length} configurations for the ${NEWER_CEL.length} newer CEL conditions`);
  if (rendered.filter((r) => r.object.kind === 'CustomResourceDefinition').length !== 2) throw new Error('the sample chart rendered no Profile and Assignment CRDs');
  return { supported: rendered, newer };
}

beforeAll(async () => {
  const started = Date.now();
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-support-range-'));
  const [rendered, ...planes] = await Promise.all([
    renderEverything(),
    ...ends.map((end) =>
      startControlPlane({ dir: path.join(dir!, end.version), hostAddress: '127.0.0.1', certManager: false, apiServerBinary: end.binary, log: (line) => log(`${end.version}: ${line}`) }),
    ),
  ]);
  objects.push(...rendered.supported);
  newerCel.push(...rendered.newer);
  planes.forEach((plane, i) => (ends[i]!.controlPlane = plane));
  log(`${objects.length} objects rendered, ${ends.map((e) => e.version).join(' and ')} up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

afterAll(async () => {
  for (const end of ends) await end.controlPlane?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function request(end: End, method: string, urlPath: string, body?: unknown, contentType?: string) {
  const plane = end.controlPlane!;
  return rawRequest(plane.apiServerPort, method, urlPath, plane.ca.cert, plane.admin, body === undefined ? undefined : JSON.stringify(body), contentType);
}

/** What the API server sets itself on every object; the rest of what it stores must come from what was sent. */
function withoutServerFields(object: Record<string, any>): Record<string, any> {
  const { uid: _uid, resourceVersion: _rv, generation: _generation, creationTimestamp: _created, managedFields: _managed, ...metadata } = object.metadata as Record<string, unknown>;
  const { status: _status, ...rest } = object;
  return { ...rest, metadata };
}

/**
 * The defaults admissionregistration.k8s.io/v1 and apiextensions.k8s.io/v1 fill in for
 * fields the objects leave out. Only these may differ between what is sent and what is stored.
 */
function withApiDefaults(object: K8sObject): K8sObject {
  const copy = structuredClone(object);
  if (CONFIGURATION_KINDS.has(copy.kind)) {
    for (const webhook of copy.webhooks as Record<string, any>[]) {
      webhook.namespaceSelector ??= {};
      webhook.objectSelector ??= {};
      if (copy.kind === 'MutatingWebhookConfiguration') webhook.reinvocationPolicy ??= 'Never';
    }
  }
  if (copy.kind === 'CustomResourceDefinition') copy.spec.conversion ??= { strategy: 'None' };
  return copy;
}

const nameOf = (object: K8sObject) => object.metadata.name;
const stored: Map<string, Record<string, any>>[] = ends.map(() => new Map());

describe.each(ends.map((end, index) => ({ end, index, title: `${end.label} minor, kube-apiserver ${end.version}` })))('$title', ({ end, index }) => {
  it('is the version the pins name', async () => {
    const { status, body } = await request(end, 'GET', '/version');
    expect(status).toBe(200);
    expect(body.gitVersion).toBe(end.version);
  });

  it('accepts every object on a strict dry-run create, without a warning, as it would store it', async () => {
    const outcomes = [];
    for (const { source, object } of objects) {
      const { status, headers, body } = await request(end, 'POST', `${RESOURCES[object.kind]}?dryRun=All&fieldValidation=Strict`, object);
      outcomes.push({ source, name: nameOf(object), status, warning: headers.warning, message: status === 201 ? undefined : body.message });
      if (status === 201) expect({ source, object: withoutServerFields(body) }).toEqual({ source, object: withApiDefaults(object) });
    }
    expect(outcomes.filter((o) => o.status !== 201 || o.warning !== undefined)).toEqual([]);
  });

  it('stores every object server-side applied as it was sent, complete', async () => {
    for (const { source, object } of objects) {
      const url = `${RESOURCES[object.kind]}/${nameOf(object)}`;
      const applied = await request(end, 'PATCH', `${url}?fieldManager=${FIELD_MANAGER}&force=true&fieldValidation=Strict`, object, 'application/apply-patch+yaml');
      expect({ source, status: applied.status, warning: applied.headers.warning, message: applied.body.message }).toEqual({ source, status: 201, warning: undefined, message: undefined });
      const read = await request(end, 'GET', url);
      expect(read.status).toBe(200);
      expect({ source, object: withoutServerFields(read.body) }).toEqual({ source, object: withApiDefaults(object) });
      stored[index]!.set(`${object.kind}/${nameOf(object)}`, withoutServerFields(read.body));
    }
    expect(stored[index]!.size).toBe(objects.length);
  });

  it('serves the sample CRDs (Established)', async () => {
    for (const { object } of objects.filter((o) => o.object.kind === 'CustomResourceDefinition')) {
      await waitFor(
        `${nameOf(object)} to be Established`,
        async () => {
          const { body } = await request(end, 'GET', `${RESOURCES.CustomResourceDefinition}/${nameOf(object)}`);
          return (body.status?.conditions as { type: string; status: string }[] | undefined)?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
        },
        30_000,
      );
    }
  });
});

describe('matchConditions with CEL libraries newer than the oldest minor', () => {
  const dryRun = (end: End, object: K8sObject) => request(end, 'POST', `${RESOURCES[object.kind]}?dryRun=All&fieldValidation=Strict`, object);

  it('are accepted by the pinned minor', async () => {
    const answers = [];
    for (const { object } of newerCel) answers.push({ name: nameOf(object), status: (await dryRun(ends[1]!, object)).status });
    expect(answers).toEqual(newerCel.map(({ object }) => ({ name: nameOf(object), status: 201 })));
  });

  it('are refused by the oldest supported minor: the expression does not compile, a function is undeclared', async () => {
    const answers = [];
    for (const { object } of newerCel) {
      const { status, body } = await dryRun(ends[0]!, object);
      answers.push({
        name: nameOf(object),
        status,
        field: (body.details?.causes as { field?: string }[] | undefined)?.map((c) => c.field),
        undeclared: /compilation failed: ERROR: .*undeclared reference to/.test(body.message as string),
      });
    }
    expect(answers).toEqual(newerCel.map(({ object }) => ({ name: nameOf(object), status: 422, field: ['webhooks[0].matchConditions[0].expression'], undeclared: true })));
  });
});

describe('both ends', () => {
  it("are within the chart's kubeVersion (the scaffold's, filled in: sample-chart.test.ts), and are the README's range", async () => {
    // helm refuses to render a chart whose kubeVersion excludes --kube-version.
    for (const version of [versions.OLDEST_KUBERNETES_VERSION, versions.KUBERNETES_VERSION]) {
      await run(tool('helm'), ['template', 'shaper', path.join(REPO_ROOT, 'charts/shaper-webhooks'), '--kube-version', version], { maxBuffer: 64 * 1024 * 1024 });
    }
    const minor = (version: string) => /^v(\d+\.\d+)\./.exec(version)![1]!;
    expect(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')).toContain(
      `## Supported Kubernetes versions\n\n**${minor(versions.OLDEST_KUBERNETES_VERSION)} to ${minor(versions.KUBERNETES_VERSION)}.**`,
    );
  });

  it('store the same objects', () => {
    expect(stored[0]!.size).toBe(objects.length);
    expect(Object.fromEntries(stored[0]!)).toEqual(Object.fromEntries(stored[1]!));
  });
});
