/**
 * Differential test of validateCustomResource against the real kube-apiserver:
 * the CRDs of crd-differential/crds.ts and the sample's (as its chart renders
 * them) are created, objects stored for the updates (the ratchets under a
 * loose schema, then tightened), and every case of crd-differential/cases.ts
 * is sent to the API server and to validateCustomResource. Whole answers are
 * compared: accepted or refused, the stored object, the Status (message,
 * reason, causes with their fields), the warnings. The server's uid,
 * creationTimestamp, resourceVersion and managedFields are left out of the
 * objects: they are the store's and the field manager's, not the CRD's.
 */
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateCustomResource, type CrdSource } from 'shaper-gen/testing';
import { waitFor } from '../../support/kindenv/processes.js';
import { REPO_ROOT } from '../../support/repo-root.js';
import { helmTemplate, type K8sObject } from '../support/helm.js';
import { type ApiAnswer, type ApiClient } from './policy-differential/api-client.js';
import { createNamespaces, installCrds, ok, startPolicyCluster, type PolicyCluster } from './policy-differential/cluster.js';
import { CRD_CASES, isNamespaced, NAMESPACE, type CrdCase, type CrdName, type Obj } from './crd-differential/cases.js';
import { DIALS, GADGETS, GROUP, ratchets } from './crd-differential/crds.js';

const log = (line: string) => process.stderr.write(`crd-differential: ${line}\n`);

const PLURALS: Record<CrdName, { group: string; plural: string }> = {
  gadgets: { group: GROUP, plural: 'gadgets' },
  ratchets: { group: GROUP, plural: 'ratchets' },
  dials: { group: GROUP, plural: 'dials' },
  profiles: { group: 'shaper.io', plural: 'profiles' },
  assignments: { group: 'shaper.io', plural: 'assignments' },
};

/** The CRD each case is validated against locally: the same objects, and the sample's kinds from its TypeScript sources. */
const LOCAL_CRDS: Record<CrdName, CrdSource> = {
  gadgets: GADGETS,
  ratchets: ratchets(true),
  dials: DIALS,
  profiles: { kind: 'Profile', group: 'shaper.io' },
  assignments: { kind: 'Assignment', group: 'shaper.io' },
};

interface Outcome {
  allowed: boolean;
  object?: unknown;
  status?: unknown;
  warnings: string[];
}

let cluster: PolicyCluster | undefined;
let client: ApiClient | undefined;
const stored = new Map<string, Obj>();
const compared: { case: CrdCase; server: Outcome; local: Outcome }[] = [];

const versionOf = (c: CrdCase) => c.version ?? c.object.apiVersion.split('/')[1]!;

function resourcePath(c: CrdCase, name?: string): string {
  const { group, plural } = PLURALS[c.crd];
  const namespace = isNamespaced(c.crd) ? `/namespaces/${NAMESPACE}` : '';
  return `/apis/${group}/${versionOf(c)}${namespace}/${plural}${name ? `/${name}` : ''}`;
}

/** An UPDATE's body: the case's object with the stored object's resourceVersion, as a client that read it sends it. */
function body(c: CrdCase): Obj {
  if (c.operation === 'CREATE') return c.object;
  const old = stored.get(c.id)!;
  return { ...c.object, metadata: { ...c.object.metadata, resourceVersion: (old.metadata as { resourceVersion: string }).resourceVersion } };
}

/** Without what the store and the field manager add. */
function storedPart(object: unknown): unknown {
  const copy = structuredClone(object) as { metadata?: Record<string, unknown> };
  for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields']) delete copy.metadata?.[field];
  return copy;
}

interface Status {
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { field: string; message: string }[] };
}

/**
 * Several schema errors come in Go's map order, on the API server as in-process (kube-openapi walks the
 * properties of a map): with more than one cause, the causes are sorted, and the message, once it is checked to
 * list exactly those causes, rebuilt in that order. Warnings are sorted: the Warning headers carry no order.
 */
function ordered(outcome: Outcome): Outcome {
  const warnings = [...outcome.warnings].sort();
  const status = outcome.status as Status | undefined;
  const causes = status?.details?.causes;
  if (!status || !causes || causes.length < 2) return { ...outcome, warnings };
  const texts = causes.map((cause) => `${cause.field}: ${cause.message}`);
  const head = `${status.details!.kind}.${status.details!.group} "${status.details!.name}" is invalid: [`;
  const listed = status.message.startsWith(head) && status.message.length === head.length + texts.join(', ').length + 1 && texts.every((text) => status.message.includes(text));
  const sorted = [...causes].sort((a, b) => `${a.field}: ${a.message}`.localeCompare(`${b.field}: ${b.message}`));
  const message = listed ? `${head}${sorted.map((cause) => `${cause.field}: ${cause.message}`).join(', ')}]` : status.message;
  return { ...outcome, warnings, status: { ...status, message, details: { ...status.details, causes: sorted } } };
}

async function serverOutcome(c: CrdCase): Promise<Outcome> {
  const name = c.object.metadata.name as string;
  const query = c.fieldValidation ? `?fieldValidation=${c.fieldValidation}` : '';
  const answer: ApiAnswer =
    c.operation === 'CREATE'
      ? await client!.request('POST', `${resourcePath(c)}${query}`, body(c))
      : await client!.request('PUT', `${resourcePath(c, name)}${c.subresource ? `/${c.subresource}` : ''}${query}`, body(c));
  if (answer.status < 300) return { allowed: true, object: storedPart(answer.body), warnings: answer.warnings };
  return { allowed: false, status: answer.body, warnings: answer.warnings };
}

async function localOutcome(c: CrdCase): Promise<Outcome> {
  const result = await validateCustomResource({
    crd: LOCAL_CRDS[c.crd],
    object: body(c),
    operation: c.operation,
    version: versionOf(c),
    ...(c.operation === 'UPDATE' && { oldObject: stored.get(c.id)! }),
    ...(c.subresource && { subresource: c.subresource }),
    ...(isNamespaced(c.crd) && { namespace: NAMESPACE }),
    ...(c.fieldValidation && { fieldValidation: c.fieldValidation }),
    root: REPO_ROOT,
  });
  if (result.allowed) return { allowed: true, object: storedPart(result.object), warnings: result.warnings };
  return { allowed: false, status: result.status, warnings: result.warnings };
}

/** The objects the updates start from; the ratchets' before their schema is tightened. */
async function storeObjects(): Promise<void> {
  for (const c of CRD_CASES.filter((x) => x.stored)) {
    const storeCase = { ...c, object: c.stored!, operation: 'CREATE' as const };
    await ok(client!.request('POST', resourcePath(storeCase), c.stored), `storing ${c.id}`);
    stored.set(c.id, await ok(client!.request('GET', resourcePath(storeCase, c.stored!.metadata.name as string)), `reading ${c.id}`));
  }
}

/** Replaces the ratchets' loose schema with the strict one, and waits until the API server serves it. */
async function tightenRatchets(): Promise<void> {
  const name = `ratchets.${GROUP}`;
  const current = await ok(client!.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`), 'reading the ratchets CRD');
  const strict = ratchets(true);
  await ok(
    client!.request('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, { ...current, spec: { ...current.spec, versions: strict.spec.versions } }),
    'tightening the ratchets CRD',
  );
  const probe = { apiVersion: `${GROUP}/v1`, kind: 'Ratchet', metadata: { name: 'probe', namespace: NAMESPACE }, spec: { code: 'abcd' } };
  await waitFor(
    'the strict ratchets schema in force',
    async () => ((await client!.request('POST', `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/ratchets?dryRun=All`, probe)).status === 422 ? true : undefined),
    30_000,
    200,
  );
  for (const c of CRD_CASES.filter((x) => x.crd === 'ratchets' && x.stored)) {
    stored.set(c.id, await ok(client!.request('GET', `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/ratchets/${c.stored!.metadata.name as string}`), `re-reading ${c.id}`));
  }
}

beforeAll(async () => {
  const started = Date.now();
  const sampleCrds = async () => (await helmTemplate(path.join(REPO_ROOT, 'charts/shaper-webhooks'))).filter((o) => o.kind === 'CustomResourceDefinition');
  const startedCluster = await startPolicyCluster('shaper-crd-diff-', log, sampleCrds);
  cluster = startedCluster;
  client = startedCluster.client;
  const sample: K8sObject[] = startedCluster.prepared;
  expect(sample.map((crd) => crd.metadata.name)).toEqual(['assignments.shaper.io', 'profiles.shaper.io']);
  await installCrds(client, [GADGETS, ratchets(false), DIALS, ...sample] as K8sObject[]);
  await createNamespaces(client, { [NAMESPACE]: {} });
  await storeObjects();
  await tightenRatchets();
  log(`control plane, CRDs and ${stored.size} stored objects ready in ${Math.round((Date.now() - started) / 1000)} s`);
});

afterAll(async () => {
  await cluster?.stop();
});

describe('validateCustomResource against kube-apiserver', () => {
  it('answers every case as the API server does: decision, stored object, Status and warnings', async () => {
    for (const c of CRD_CASES) compared.push({ case: c, server: ordered(await serverOutcome(c)), local: ordered(await localOutcome(c)) });
    const differences = compared.filter((x) => !isDeepStrictEqual(x.server, x.local));
    const count = (what: (x: (typeof compared)[number]) => boolean) => compared.filter(what).length;
    log(
      `${compared.length} cases (${count((x) => x.case.operation === 'CREATE')} creates, ${count((x) => x.case.operation === 'UPDATE')} updates; ` +
        `${count((x) => x.server.allowed)} stored, ${count((x) => !x.server.allowed)} refused, ${count((x) => x.server.warnings.length > 0)} with warnings; ` +
        `${Object.keys(PLURALS)
          .map((crd) => `${count((x) => x.case.crd === crd)} ${crd}`)
          .join(', ')}): ${differences.length} differences`,
    );
    expect(compared.length).toBeGreaterThanOrEqual(120);
    expect(differences.map((x) => ({ id: x.case.id, server: x.server, local: x.local }))).toEqual([]);
  }, 600_000);
});
