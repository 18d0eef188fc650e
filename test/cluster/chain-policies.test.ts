/**
 * The admission chain differential: each scenario of
 * policy-differential/chain-scenarios.ts (policies and bindings as YAML) is
 * installed on a real kube-apiserver 1.37, every request sent to it as a
 * dry-run create and through `admit` (shaper-gen/testing) over the same YAML,
 * the namespaces and params as the API server stores them; the answers are
 * compared whole: decision, code, reason, message, warnings, mutated object.
 * Pods and Deployments are sent as the API server decodes them (its defaults
 * and in-tree plugins applied: a dry-run create without policies), so both
 * sides start from the same object.
 */
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit } from 'shaper-gen/testing';
import { waitFor } from '../../support/kindenv/processes.js';
import { collectionPath, type ApiClient } from './policy-differential/api-client.js';
import { CHAIN_NAMESPACES, CHAIN_SCENARIOS, type ChainRequest, type ChainScenario, type Obj } from './policy-differential/chain-scenarios.js';
import { ADMIN, createNamespaces, installCrds, ok, startPolicyCluster, type PolicyCluster } from './policy-differential/cluster.js';

const log = (line: string) => process.stderr.write(`chain policies: ${line}\n`);
/** What the API server sets on every object it stores (or would), and status: not the admission chain's doing. */
const SERVER_FIELDS = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields'];
const RESOURCES: Readonly<Record<string, string>> = {
  MutatingAdmissionPolicy: 'mutatingadmissionpolicies',
  MutatingAdmissionPolicyBinding: 'mutatingadmissionpolicybindings',
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
};

interface Outcome {
  allowed: boolean;
  code: number;
  reason?: string;
  message?: string;
  warnings: string[];
  object?: unknown;
}

let cluster: PolicyCluster | undefined;
let client: ApiClient | undefined;
let namespaces: unknown[] = [];
const compared: { scenario: string; request: ChainRequest; sent: Obj; server: Outcome; local: Outcome }[] = [];
const mutated = (x: (typeof compared)[number]) => x.server.allowed && JSON.stringify(x.server.object) !== JSON.stringify(canonical(x.sent));

function canonical(value: unknown, key?: string, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item) => canonical(item, undefined, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value)
    .filter(([k]) => !(depth === 0 && k === 'status') && !(key === 'metadata' && depth === 1 && SERVER_FIELDS.includes(k)))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v, k, depth + 1)]));
}

function documents(yaml: string): Obj[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

async function dryRunCreate(request: ChainRequest, object: Obj) {
  return client!.request('POST', `${collectionPath(request.resource, object.metadata.namespace)}?dryRun=All`, object);
}

/**
 * The object as the API server decodes it for admission (a dry-run create with no policies in force): a Pod or
 * Deployment with its defaults, a ConfigMap without its empty `data` and `labels`.
 */
async function decoded(request: ChainRequest): Promise<Obj> {
  const body = (await ok(dryRunCreate(request, request.object), `decoding ${request.id}`)) as Obj;
  return canonical(body) as Obj;
}

async function serverOutcome(request: ChainRequest, object: Obj): Promise<Outcome> {
  const answer = await dryRunCreate(request, object);
  if (answer.status < 300) return { allowed: true, code: 200, warnings: answer.warnings, object: canonical(answer.body) };
  const status = answer.body as { code: number; reason: string; message: string };
  return { allowed: false, code: status.code, reason: status.reason, message: status.message, warnings: answer.warnings };
}

async function localOutcome(scenario: ChainScenario, request: ChainRequest, object: Obj, params: unknown[]): Promise<Outcome> {
  const decision = await admit({
    object,
    resource: request.resource,
    policies: [scenario.yaml, ...(scenario.crds ?? [])],
    namespaces: namespaces as object[],
    params: params as object[],
    userInfo: ADMIN,
    dryRun: true,
  });
  if (decision.allowed) return { allowed: true, code: 200, warnings: decision.warnings, object: canonical(decision.object) };
  return { allowed: false, code: decision.code, reason: decision.reason, message: decision.message, warnings: decision.warnings };
}

/** A validating and a mutating policy that act only on the scenario's own marker ConfigMaps: in force, they show the scenario's policies are. */
function readinessPolicies(scenario: string): Obj[] {
  const match = (label: string) => ({
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    objectSelector: { matchLabels: { [label]: scenario } },
  });
  const meta = (kind: string, name: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name } });
  return [
    { ...meta('ValidatingAdmissionPolicy', `ready-v-${scenario}`), spec: { matchConstraints: match('ready-v'), validations: [{ expression: 'false', message: `ready ${scenario}` }] } },
    {
      ...meta('MutatingAdmissionPolicy', `ready-m-${scenario}`),
      spec: {
        matchConstraints: match('ready-m'),
        reinvocationPolicy: 'Never',
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: `Object{metadata: Object.metadata{annotations: {"ready": "${scenario}"}}}` } }],
      },
    },
    { ...meta('ValidatingAdmissionPolicyBinding', `ready-v-${scenario}`), spec: { policyName: `ready-v-${scenario}`, validationActions: ['Deny'] } },
    { ...meta('MutatingAdmissionPolicyBinding', `ready-m-${scenario}`), spec: { policyName: `ready-m-${scenario}` } },
  ];
}

function anchorPolicy(): Obj[] {
  const meta = (kind: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: 'chain-param-informer-anchor' } });
  return [
    {
      ...meta('ValidatingAdmissionPolicy'),
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { 'chain-anchor': 'yes' } },
        },
        validations: [{ expression: 'true' }],
      },
    },
    {
      ...meta('ValidatingAdmissionPolicyBinding'),
      spec: { policyName: 'chain-param-informer-anchor', validationActions: ['Deny'], paramRef: { name: 'none', parameterNotFoundAction: 'Allow' } },
    },
  ];
}

/** Whether the scenario's marker policies are in force (both), or out of force (neither). */
async function markers(scenario: string): Promise<{ validating: boolean; mutating: boolean }> {
  const marker = (label: string): ChainRequest => ({
    id: 'marker',
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `marker-${label}`, namespace: 'chain-bare', labels: { [label]: scenario } } },
  });
  const v = await dryRunCreate(marker('ready-v'), marker('ready-v').object);
  const m = await dryRunCreate(marker('ready-m'), marker('ready-m').object);
  const annotations = (m.body as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations;
  return { validating: v.status >= 300 && String((v.body as { message?: string }).message).includes(`ready ${scenario}`), mutating: annotations?.ready === scenario };
}

async function install(objects: readonly Obj[]): Promise<void> {
  for (const object of objects) await ok(client!.request('POST', `/apis/admissionregistration.k8s.io/v1/${RESOURCES[object.kind]!}`, object), `creating ${object.kind} ${object.metadata.name}`);
}

/** Bindings first, the marker bindings last: once those are out of force, so is everything deleted before them. */
async function uninstall(objects: readonly Obj[]): Promise<void> {
  const order = [...objects.filter((o) => o.kind.endsWith('Binding')), ...objects.filter((o) => !o.kind.endsWith('Binding'))];
  for (const object of order)
    await ok(client!.request('DELETE', `/apis/admissionregistration.k8s.io/v1/${RESOURCES[object.kind]!}/${object.metadata.name}`), `deleting ${object.kind} ${object.metadata.name}`);
}

async function runScenario(scenario: ChainScenario, objects: ReadonlyMap<string, Obj>): Promise<void> {
  const params: unknown[] = [];
  for (const param of scenario.params) {
    const path = collectionPath({ group: '', version: 'v1', resource: 'configmaps' }, param.metadata.namespace);
    await ok(client!.request('POST', path, param), `creating param ${param.metadata.name}`);
    params.push(await ok(client!.request('GET', `${path}/${param.metadata.name}`), `reading param ${param.metadata.name}`));
  }
  const installed = [...documents(scenario.yaml), ...readinessPolicies(scenario.name)];
  await install(installed);
  await waitFor(
    `scenario ${scenario.name} in force`,
    async () => {
      const state = await markers(scenario.name);
      return state.validating && state.mutating ? true : undefined;
    },
    60_000,
    300,
  );
  for (const request of scenario.requests) {
    const object = objects.get(request.id)!;
    compared.push({ scenario: scenario.name, request, sent: object, server: await serverOutcome(request, object), local: await localOutcome(scenario, request, object, params) });
  }
  await uninstall(installed);
  await waitFor(
    `scenario ${scenario.name} out of force`,
    async () => {
      const state = await markers(scenario.name);
      return !state.validating && !state.mutating ? true : undefined;
    },
    60_000,
    300,
  );
  for (const param of scenario.params) {
    await ok(
      client!.request('DELETE', `${collectionPath({ group: '', version: 'v1', resource: 'configmaps' }, param.metadata.namespace)}/${param.metadata.name}`),
      `deleting ${param.metadata.name}`,
    );
  }
}

beforeAll(async () => {
  const started = Date.now();
  cluster = await startPolicyCluster('shaper-chain-', log, async () => undefined);
  client = cluster.client;
  await installCrds(
    client,
    CHAIN_SCENARIOS.flatMap((s) => s.crds ?? []),
  );
  const created = await createNamespaces(client, CHAIN_NAMESPACES);
  namespaces = [...created.values()];
  // Pods need the namespace's default ServiceAccount (no controller-manager creates it here).
  for (const namespace of Object.keys(CHAIN_NAMESPACES)) {
    await ok(
      client.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }),
      `creating ${namespace}/default`,
    );
  }
  // A policy with a ConfigMap paramKind in force throughout: when the last such policy goes, kube-apiserver 1.37.2
  // stops the ConfigMap informer its policy source shares, and later policies' paramRef selectors read its stale
  // cache (names fall back to a GET); the scenarios install and delete theirs one after another.
  await install(anchorPolicy());
  const objects = new Map<string, Obj>();
  for (const request of CHAIN_SCENARIOS.flatMap((s) => s.requests)) objects.set(request.id, await decoded(request));
  log(`set up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const scenario of CHAIN_SCENARIOS) await runScenario(scenario, objects);
  const differences = compared.filter((x) => JSON.stringify(x.server) !== JSON.stringify(x.local));
  const perScenario = CHAIN_SCENARIOS.map((s) => `${s.name} ${compared.filter((x) => x.scenario === s.name).length}`).join(', ');
  console.log(
    `admission chain differential: ${compared.length} cases (${perScenario}); API server: ${compared.filter((x) => !x.server.allowed).length} refused, ${compared.filter(mutated).length} mutated, ` +
      `${compared.filter((x) => x.server.warnings.length > 0).length} with warnings; differences: ${differences.length}; in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}, 900_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('the admission chain on the kube-apiserver', () => {
  it('replays at least 120 requests through the scenarios, with refusals, warnings and mutations among them', () => {
    expect(compared.length).toBeGreaterThanOrEqual(120);
    expect(compared.some((x) => !x.server.allowed)).toBe(true);
    expect(compared.some((x) => x.server.warnings.length > 0)).toBe(true);
    expect(CHAIN_SCENARIOS.filter((s) => !compared.some((x) => x.scenario === s.name && mutated(x))).map((s) => s.name)).toEqual(['params-not-found', 'param-selection']);
  });

  it('answers every request through admit as the API server does: decision, status, warnings and mutated object', () => {
    const differences = compared.filter((x) => JSON.stringify(x.server) !== JSON.stringify(x.local)).map((x) => ({ id: `${x.scenario}/${x.request.id}`, server: x.server, local: x.local }));
    expect(differences).toEqual([]);
  });
});
