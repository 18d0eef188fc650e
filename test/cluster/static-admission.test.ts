/**
 * Static admission (manifest-based admission, KEP-5793, beta in Kubernetes
 * 1.37) on a real kube-apiserver: `shaper-gen manifests --static` writes the
 * sample's webhooks and policies into a directory, the API server (etcd and
 * kube-apiserver only, no node, no cert-manager) starts with an admission
 * configuration pointing each plugin's staticManifestsDir at its
 * subdirectory, and the built `shaper-gen serve` answers the webhooks on
 * loopback at the URL the files name. No webhook configuration and no policy
 * is created through the API: every decision below comes from the files.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deniedBy } from '../../support/kindenv/admission-status.js';
import { startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { REPO_ROOT } from '../../support/repo-root.js';
import { helmTemplate } from '../support/helm.js';
import { serve, ServeDir, waitReady, type ServeProcess } from '../support/serve-process.js';
import { startTcpRelay, type TcpRelay } from '../support/tcp-relay.js';
import { apiClient, type ApiClient } from './policy-differential/api-client.js';
import { installCrds, ok } from './policy-differential/cluster.js';

const log = (line: string) => process.stderr.write(`static-admission: ${line}\n`);
const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'dist/bin/shaper-gen.js');
const NS = 'team-a';
const PROFILES = `/apis/shaper.io/v1alpha1/namespaces/${NS}/profiles`;
const ASSIGNMENTS = `/apis/shaper.io/v1alpha1/namespaces/${NS}/assignments`;
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
/** Each admission plugin, the kind of its configuration and the subdirectory `--static` writes its files into. */
const PLUGINS = [
  { name: 'ValidatingAdmissionWebhook', kind: 'WebhookAdmissionConfiguration', directory: 'validating-webhooks' },
  { name: 'MutatingAdmissionWebhook', kind: 'WebhookAdmissionConfiguration', directory: 'mutating-webhooks' },
  { name: 'ValidatingAdmissionPolicy', kind: 'ValidatingAdmissionPolicyConfiguration', directory: 'validating-policies' },
  { name: 'MutatingAdmissionPolicy', kind: 'MutatingAdmissionPolicyConfiguration', directory: 'mutating-policies' },
];
const STATIC = {
  webhooks: 'shaper-webhooks.static.k8s.io',
  tierPolicy: 'profile-tier-policy.shaper.io.static.k8s.io',
  descriptionPolicy: 'profile-description-policy.shaper.io.static.k8s.io',
  tierLabelPolicy: 'tier-label-policy.static.k8s.io',
  profileLabelPolicy: 'assignment-profile-label-policy.shaper.io.static.k8s.io',
};

let dir: string;
let serveDir: ServeDir | undefined;
let server: ServeProcess | undefined;
let plane: ControlPlane | undefined;
let client: ApiClient;
let generated: string;
let staticDir: string;
let relay: TcpRelay | undefined;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-static-admission-'));
  serveDir = await ServeDir.create();
  // The files name the relay's URL: serve's own port is picked only when it starts, after the API server.
  relay = await startTcpRelay();
  const caFile = path.join(dir, 'webhook-ca.crt');
  writeFileSync(caFile, serveDir.ca.cert);
  staticDir = path.join(dir, 'static');
  generated = (await run(process.execPath, [CLI, 'manifests', '--static', staticDir, '--static-url', `https://127.0.0.1:${relay.port}`, '--static-ca-bundle', caFile], { cwd: REPO_ROOT })).stdout;

  const admissionConfiguration = path.join(dir, 'admission-configuration.yaml');
  writeFileSync(
    admissionConfiguration,
    stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: PLUGINS.map((plugin) => ({
        name: plugin.name,
        configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: plugin.kind, staticManifestsDir: path.join(staticDir, plugin.directory) },
      })),
    }),
  );
  plane = await startControlPlane({
    dir: path.join(dir, 'cluster'),
    hostAddress: '127.0.0.1',
    log,
    certManager: false,
    // The gate is on by default in 1.37 (beta); named so that this test says what it relies on.
    apiServerArgs: [`--admission-control-config-file=${admissionConfiguration}`, '--feature-gates=ManifestBasedAdmissionControlConfig=true'],
  });
  client = apiClient(plane);
  const crds = (await helmTemplate(path.join(REPO_ROOT, 'charts/shaper-webhooks'))).filter((o) => o.kind === 'CustomResourceDefinition');
  await installCrds(client, crds);
  await ok(client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), `creating namespace ${NS}`);

  const config = await serveDir.writeConfig({
    handlers: [path.join(REPO_ROOT, 'dist/sample/webhooks.generated.js')],
    expectedPaths: ['/mutate-assignment', '/mutate-profile', '/validate-assignment', '/validate-profile'],
  });
  // /validate-assignment reads Profiles through the server's cache: the admin's kubeconfig stands in for the chart's ServiceAccount.
  server = serve(['--config', config.file], { env: { KUBECONFIG: plane.kubeconfigPath } });
  relay.target = config.port;
  const readiness = await waitReady(config.health, server);
  if (!readiness.includes('readyz check passed')) throw new Error(`serve is not ready:\n${readiness}\n${server.output()}`);
  // A MutatingAdmissionPolicy merges with the resource's schema, which the API server has a moment after the CRD is
  // established: until then it answers 503 ("There can be a delay …").
  const probe = { apiVersion: 'shaper.io/v1alpha1', kind: 'Assignment', metadata: { name: 'probe', namespace: NS }, spec: { profileRef: { name: 'probe' } } };
  await waitFor('the Assignment schema for mutating policies', async () => ((await client.request('POST', `${ASSIGNMENTS}?dryRun=All`, probe)).status === 503 ? undefined : true), 60_000, 500);
}, 300_000);

afterAll(async () => {
  (client as ApiClient | undefined)?.close();
  server?.child.kill('SIGKILL');
  await server?.exited;
  await plane?.stop();
  relay?.close();
  serveDir?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The object as the API server answered it, compared with what it must hold: what the server sets itself is taken from the answer. */
function withServerFields<T extends { metadata: Record<string, unknown> }>(expected: T, answer: { metadata: Record<string, unknown> }): T {
  const { uid, resourceVersion, creationTimestamp, generation, managedFields } = answer.metadata;
  return { ...expected, metadata: { ...expected.metadata, uid, resourceVersion, creationTimestamp, generation, managedFields } };
}

/**
 * The Status a client receives when a ValidatingAdmissionPolicy denies (k8s.io/apiserver
 * pkg/admission/plugin/policy/validating/dispatcher.go): admission.NewForbidden's, with the validation's reason
 * (Invalid when it sets none, as the sample's do or say) and the message as its one cause.
 */
function deniedByPolicy(resource: { group: string; resource: string }, name: string, policy: string, message: string) {
  const denial = `ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: ${message}`;
  return failure({
    message: `${resource.resource}.${resource.group} "${name}" is forbidden: ${denial}`,
    reason: 'Invalid',
    details: { name, group: resource.group, kind: resource.resource, causes: [{ message: denial }] },
    code: 422,
  });
}

/** A metav1.Status of a refusal as a client reads it. */
function failure(status: { message: string; reason: string; details: object; code: number }) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status };
}

/** A gold Profile below priority 500 (server-side dry run): the static ProfileTierPolicy denies it. */
async function expectCheapGoldDenied(name: string, priority: number): Promise<void> {
  const answer = await client.request('POST', `${PROFILES}?dryRun=All`, {
    apiVersion: 'shaper.io/v1alpha1',
    kind: 'Profile',
    metadata: { name, namespace: NS },
    spec: { tier: 'gold', priority, description: 'gold on the cheap' },
  });
  expect(answer).toEqual({
    status: 422,
    warnings: [],
    body: deniedByPolicy({ group: 'shaper.io', resource: 'profiles' }, name, STATIC.tierPolicy, `a gold Profile needs priority 500 or more, got ${priority}`),
  });
}

describe('shaper-gen manifests --static, loaded by kube-apiserver 1.37', () => {
  it('writes one file per object into one directory per admission plugin', () => {
    const files = PLUGINS.map((plugin) => ({ directory: plugin.directory, files: readdirSync(path.join(staticDir, plugin.directory)).sort() }));
    expect(files).toEqual([
      { directory: 'validating-webhooks', files: [`${STATIC.webhooks}.yaml`] },
      { directory: 'mutating-webhooks', files: [`${STATIC.webhooks}.yaml`] },
      { directory: 'validating-policies', files: [`${STATIC.descriptionPolicy}.yaml`, `${STATIC.tierPolicy}.yaml`, `${STATIC.tierLabelPolicy}.yaml`] },
      { directory: 'mutating-policies', files: [`${STATIC.profileLabelPolicy}.yaml`] },
    ]);
    expect(generated).toContain('6 files updated');
  });

  it('defaults a Profile through the static mutating webhook, and warns through the static Warn policy', async () => {
    const body = { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'plain', namespace: NS }, spec: { tier: 'silver' } };
    const answer = await client.request('POST', PROFILES, body);
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual(withServerFields({ ...body, metadata: { ...body.metadata, labels: { 'shaper.io/tier': 'silver' } }, spec: { tier: 'silver', priority: 500 } }, answer.body));
    expect(answer.warnings).toEqual([
      `Validation failed for ValidatingAdmissionPolicy '${STATIC.descriptionPolicy}' with binding '${STATIC.descriptionPolicy}': a Profile should say what it is for in spec.description`,
    ]);
  });

  it('denies a gold Profile below priority 500 through the static validating policy, with its message', async () => {
    await expectCheapGoldDenied('cheap-gold', 100);
  });

  it('denies a Deployment whose tier label names no tier through the static policy (server-side dry run)', async () => {
    const answer = await client.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments?dryRun=All`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS, labels: { 'shaper.io/tier': 'platinum' } },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    });
    expect(answer).toEqual({
      status: 422,
      warnings: [],
      body: deniedByPolicy({ group: 'apps', resource: 'deployments' }, 'web', STATIC.tierLabelPolicy, 'label shaper.io/tier must be one of bronze, silver, gold, got platinum'),
    });
  });

  it('denies an Assignment whose Profile does not exist through the static validating webhook, with the handler message', async () => {
    const answer = await client.request('POST', ASSIGNMENTS, {
      apiVersion: 'shaper.io/v1alpha1',
      kind: 'Assignment',
      metadata: { name: 'orphan', namespace: NS },
      spec: { profileRef: { name: 'missing' }, selector: { matchLabels: { app: 'web' } } },
    });
    const cause = `Not found: "missing": Profile "missing" does not exist in namespace "${NS}"`;
    expect(answer).toEqual({
      status: 422,
      warnings: [],
      body: deniedBy('validate-assignment.shaper.io', {
        code: 422,
        reason: 'Invalid',
        message: `Assignment.shaper.io "orphan" is invalid: spec.profileRef.name: ${cause}`,
        details: { name: 'orphan', group: 'shaper.io', kind: 'Assignment', causes: [{ reason: 'FieldValueNotFound', message: cause, field: 'spec.profileRef.name' }] },
      }),
    });
  });

  it('admits an Assignment to an existing Profile, labelled by the static mutating policy and weighted by the static defaulter', async () => {
    const body = {
      apiVersion: 'shaper.io/v1alpha1',
      kind: 'Assignment',
      metadata: { name: 'web', namespace: NS, labels: { team: 'web' } },
      spec: { profileRef: { name: 'plain' }, selector: { matchLabels: { app: 'web' } } },
    };
    const answer = await client.request('POST', ASSIGNMENTS, body);
    expect(answer.status).toBe(201);
    expect(answer.warnings).toEqual([]);
    expect(answer.body).toEqual(
      withServerFields({ ...body, metadata: { ...body.metadata, labels: { team: 'web', 'shaper.io/profile': 'plain' } }, spec: { ...body.spec, weight: 50 } }, answer.body),
    );
  });
});

describe('static objects and the API', () => {
  it('lists none of them', async () => {
    const lists = await Promise.all(
      [
        'validatingwebhookconfigurations',
        'mutatingwebhookconfigurations',
        'validatingadmissionpolicies',
        'validatingadmissionpolicybindings',
        'mutatingadmissionpolicies',
        'mutatingadmissionpolicybindings',
      ].map(async (resource) => ({
        resource,
        names: ((await ok(client.request('GET', `${ADMISSION}/${resource}`), resource)) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name),
      })),
    );
    expect(lists.filter((list) => list.names.length > 0)).toEqual([]);
  });

  it('finds none by name and deletes none, the policy still enforced after the attempt', async () => {
    const notFound = (resource: string, name: string) => ({
      status: 404,
      warnings: [],
      body: failure({
        message: `${resource}.admissionregistration.k8s.io "${name}" not found`,
        reason: 'NotFound',
        details: { name, group: 'admissionregistration.k8s.io', kind: resource },
        code: 404,
      }),
    });
    expect(await client.request('GET', `${ADMISSION}/validatingadmissionpolicies/${STATIC.tierPolicy}`)).toEqual(notFound('validatingadmissionpolicies', STATIC.tierPolicy));
    expect(await client.request('DELETE', `${ADMISSION}/validatingadmissionpolicies/${STATIC.tierPolicy}`)).toEqual(notFound('validatingadmissionpolicies', STATIC.tierPolicy));
    expect(await client.request('DELETE', `${ADMISSION}/validatingwebhookconfigurations/${STATIC.webhooks}`)).toEqual(notFound('validatingwebhookconfigurations', STATIC.webhooks));
    await expectCheapGoldDenied('still-cheap', 1);
  });

  it('refuses an API object that takes a static name', async () => {
    const name = STATIC.tierPolicy;
    const answer = await client.request('POST', `${ADMISSION}/validatingadmissionpolicies`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: ['shaper.io'], apiVersions: ['*'], resources: ['profiles'], operations: ['CREATE'] }] }, validations: [{ expression: 'false' }] },
    });
    const message = 'names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';
    expect(answer).toEqual({
      status: 422,
      warnings: [],
      body: failure({
        message: `ValidatingAdmissionPolicy.admissionregistration.k8s.io "${name}" is invalid: metadata.name: Invalid value: "${name}": ${message}`,
        reason: 'Invalid',
        details: {
          name,
          group: 'admissionregistration.k8s.io',
          kind: 'ValidatingAdmissionPolicy',
          causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "${name}": ${message}`, field: 'metadata.name' }],
        },
        code: 422,
      }),
    });
  });
});
