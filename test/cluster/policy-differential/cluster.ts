/**
 * What the validating and the mutating policy differentials share: a control
 * plane with the chart's policies as `shaper-gen manifests` generates them and
 * helm renders them, the CRDs, namespaces and stored objects the cases need,
 * and the API server's verdict on a policy object's CEL (a dry-run create).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GeneratorConfig } from '../../../generator/src/config.js';
import { generateManifests } from '../../../generator/src/manifests/manifests.js';
import { writeGeneratedFiles } from '../../../generator/src/manifests/output.js';
import type { DecoratedPolicy } from '../../../generator/src/policy/scan-policy.js';
import { startControlPlane, type ControlPlane } from '../../../support/kindenv/control-plane.js';
import { waitFor } from '../../../support/kindenv/processes.js';
import { REPO_ROOT } from '../../../support/repo-root.js';
import { helmTemplate, type K8sObject } from '../../support/helm.js';
import { apiClient, collectionPath, type ApiAnswer, type ApiClient } from './api-client.js';
import type { Obj, PolicyCase } from './cases.js';

/** A request's outcome as the differentials compare it, from the API server or from local evaluation. */
export interface PolicyOutcome {
  allowed: boolean;
  code: number;
  reason?: string;
  message?: string;
  causes?: { message: string }[];
}

/** The user every case is sent as, locally and to the API server. */
export const ADMIN = { username: 'kindenv-admin', groups: ['system:masters', 'system:authenticated'] };

export async function ok(answer: Promise<ApiAnswer>, what: string): Promise<any> {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body).slice(0, 500)}`);
  return body;
}

export function itemPath(c: PolicyCase, name: string, namespace: string): string {
  return `${collectionPath(c.resource, namespace)}/${name}`;
}

export interface PolicyChart {
  /** Every object helm renders from the chart, with the generated policies. */
  readonly objects: K8sObject[];
  readonly generated: readonly DecoratedPolicy[];
}

/** The sample's chart with the policies `shaper-gen manifests` generates from the sample's kinds and policies and from `fixtures`. */
export async function generatePolicyChart(workDir: string, fixtures: string, kubeVersion?: string): Promise<PolicyChart> {
  const chartDir = path.join(workDir, 'chart');
  cpSync(path.join(REPO_ROOT, 'charts/shaper-webhooks'), chartDir, { recursive: true });
  const config: GeneratorConfig = {
    root: REPO_ROOT,
    configFile: undefined,
    tsconfig: path.join(REPO_ROOT, 'test/tsconfig.json'),
    // sample/api/'s kinds: their generated CRDs type the policies' `object`.
    sources: ['sample/api/*.ts', 'sample/policies/*-policy.ts', fixtures],
    exclude: [],
    chartDir,
    handlersModule: path.join(workDir, 'handlers.generated.ts'),
    crds: [],
    types: [],
  };
  const { files, policies } = await generateManifests(config);
  writeGeneratedFiles(files);
  return { objects: await helmTemplate(chartDir, kubeVersion ? { kubeVersion } : {}), generated: policies };
}

export interface PolicyCluster {
  readonly dir: string;
  readonly controlPlane: ControlPlane;
  readonly client: ApiClient;
  stop(): Promise<void>;
}

/** A control plane (etcd and kube-apiserver, no cert-manager) started while `prepare` generates the chart in the same work directory. */
export async function startPolicyCluster<T>(
  prefix: string,
  log: (line: string) => void,
  prepare: (dir: string) => Promise<T>,
  apiServerArgs: readonly string[] = [],
  apiServerBinary?: string,
): Promise<PolicyCluster & { prepared: T }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const [plane, prepared] = await Promise.allSettled([
    startControlPlane({ dir: path.join(dir, 'cluster'), hostAddress: '127.0.0.1', log, certManager: false, apiServerArgs, ...(apiServerBinary && { apiServerBinary }) }),
    prepare(dir),
  ]);
  const controlPlane = plane.status === 'fulfilled' ? plane.value : undefined;
  const stop = async () => {
    await controlPlane?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  if (plane.status === 'rejected' || prepared.status === 'rejected') {
    await stop();
    throw plane.status === 'rejected' ? plane.reason : (prepared as PromiseRejectedResult).reason;
  }
  const client = apiClient(controlPlane!);
  return {
    dir,
    controlPlane: controlPlane!,
    client,
    prepared: prepared.value,
    stop: async () => {
      client.close();
      await stop();
    },
  };
}

/** Creates each CRD and waits until the API server serves it. */
export async function installCrds(client: ApiClient, crds: readonly K8sObject[]): Promise<void> {
  for (const crd of crds) {
    await ok(client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd), `creating ${crd.metadata.name}`);
    await waitFor(
      `${crd.metadata.name} established`,
      async () => {
        const body = (await client.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`)).body as {
          status?: { conditions?: { type: string; status: string }[] };
        };
        return body.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ? true : undefined;
      },
      30_000,
    );
  }
}

/** Creates the namespaces with their labels; returns each as the API server stores it (the policies' `namespaceObject`). */
export async function createNamespaces(client: ApiClient, namespaces: Readonly<Record<string, Record<string, string>>>): Promise<Map<string, unknown>> {
  const created = new Map<string, unknown>();
  for (const [name, labels] of Object.entries(namespaces)) {
    await ok(client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }), `creating namespace ${name}`);
    created.set(name, await ok(client.request('GET', `/api/v1/namespaces/${name}`), `reading namespace ${name}`));
  }
  return created;
}

/** Stores the object each UPDATE and DELETE case starts from; returns them as stored, by case id. */
export async function storeObjects(client: ApiClient, cases: readonly PolicyCase[]): Promise<Map<string, Obj>> {
  const stored = new Map<string, Obj>();
  for (const c of cases.filter((x) => x.stored)) {
    const { namespace, name } = c.stored!.metadata;
    await ok(client.request('POST', collectionPath(c.resource, namespace), c.stored), `storing ${c.id}`);
    stored.set(c.id, await ok(client.request('GET', itemPath(c, name, namespace)), `reading ${c.id}`));
  }
  return stored;
}

/** Creates the generated objects of the given kinds (policies and bindings) through admissionregistration.k8s.io/v1. */
export async function installPolicies(client: ApiClient, objects: readonly K8sObject[], resources: Readonly<Record<string, string>>): Promise<void> {
  for (const object of objects) {
    await ok(client.request('POST', `/apis/admissionregistration.k8s.io/v1/${resources[object.kind]!}`, object), `creating ${object.kind} ${object.metadata.name}`);
  }
}

/** A policy's matchConstraints as the chart renders them from the decorator's rules. */
export function matchConstraints(rules: readonly { groups: string[]; versions: string[]; resources: string[]; operations: string[] }[]) {
  return { resourceRules: rules.map((r) => ({ apiGroups: r.groups, apiVersions: r.versions, resources: r.resources, operations: r.operations })) };
}

/** The API server's verdict on a policy object: undefined when it would store it, else its message (a dry-run create). */
export async function serverCompiles(client: ApiClient, resource: string, object: unknown, expression: string): Promise<string | undefined> {
  const answer = await client.request('POST', `/apis/admissionregistration.k8s.io/v1/${resource}?dryRun=All`, object);
  if (answer.status !== 201 && answer.status !== 422) throw new Error(`unexpected ${answer.status} for ${expression}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.status === 201 ? undefined : (answer.body as { message: string }).message;
}

/** What the API server sets on every object it stores (or would): not the policies' doing. */
const SERVER_FIELDS = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields'];

/** JSON with object keys sorted, the server-set metadata left out: equal text, equal objects. */
export function canonical(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => canonical(item));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value)
    .filter(([k]) => key !== 'metadata' || !SERVER_FIELDS.includes(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v, k)]));
}
