/**
 * Differential test of every CEL library of the API server's environment:
 * the policies of policy-differential/library-policies.ts (quantity, IP and
 * CIDR, URLs, format, semver, RE2 regexes, lists, sets, strings with code
 * points, two-variable comprehensions, optionals, timestamps and durations
 * with time zones, integer conversions, overflow and error precedence, the
 * authorizer against RBAC) installed as ValidatingAdmissionPolicies on the
 * real kube-apiserver, each request sent to it (server-side dry run, as the
 * admin user) and evaluated locally by shaper-gen/testing's evaluator, with
 * the authorizer's answers declared as the test's RBAC grants them. The
 * decision, the status (code, reason, message, causes), the warnings and the
 * policies' audit annotations (read from the API server's audit log) must be
 * the same for every case.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateValidatingPolicy } from '../../generator/src/policy/evaluate/validating.js';
import { clientWarnings } from '../../generator/src/cel/engine/index.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { collectionPath, type ApiClient } from './policy-differential/api-client.js';
import { ADMIN, createNamespaces, ok, serverCompiles, startPolicyCluster, type PolicyCluster, type PolicyOutcome } from './policy-differential/cluster.js';
import { AUTHZ_RBAC, AUTHZ_RULES, compileCases, LIBRARY_NAMESPACES, libraryCases, libraryPolicyObjects, resolvedLibraryPolicies } from './policy-differential/library-cases.js';
import type { PolicyCase } from './policy-differential/cases.js';
import { expressionPolicy, policyObject } from './policy-differential/expression-policy.js';
import type { ExpressionCase } from './policy-differential/expressions.js';
import { checkPolicyExpressions } from '../../generator/src/policy/expressions.js';
import { resolveValidatingPolicyOptions } from '../../runtime/policy/options/policy-resolve.js';

const log = (line: string) => process.stderr.write(`policy-libraries: ${line}\n`);

interface Outcome extends PolicyOutcome {
  warnings: string[];
  /** The policies' audit annotations (`<policy>/<key>`, validation_failure), from the API server's audit log. */
  auditAnnotations?: Record<string, string>;
}

/** The API server writes every ConfigMap request's audit event, with its annotations, to a log the test reads. */
const auditDir = mkdtempSync(path.join(os.tmpdir(), 'shaper-policy-libraries-audit-'));
const AUDIT_LOG = path.join(auditDir, 'audit.log');
writeFileSync(
  path.join(auditDir, 'policy.yaml'),
  'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n    resources: [{ group: "", resources: ["configmaps"] }]\n  - level: None\n',
);
const AUDIT_ARGS = [`--audit-policy-file=${path.join(auditDir, 'policy.yaml')}`, `--audit-log-path=${AUDIT_LOG}`, '--audit-log-mode=blocking'];

/** The policies' annotations of each ConfigMap CREATE's audit event, by namespace/name. */
function auditedAnnotations(): Map<string, Record<string, string>> {
  const byObject = new Map<string, Record<string, string>>();
  for (const line of readFileSync(AUDIT_LOG, 'utf8').split('\n').filter(Boolean)) {
    const event = JSON.parse(line) as { stage: string; verb: string; objectRef?: { namespace?: string; name?: string }; annotations?: Record<string, string> };
    if (event.stage !== 'ResponseComplete' || event.verb !== 'create' || !event.objectRef?.name) continue;
    const ours = Object.entries(event.annotations ?? {}).filter(([key]) => key.includes('.library.policy-test.shaper-gen.io/') || key.startsWith('validation.policy.admission.k8s.io/'));
    byObject.set(`${event.objectRef.namespace}/${event.objectRef.name}`, Object.fromEntries(ours.sort(([a], [b]) => a.localeCompare(b))));
  }
  return byObject;
}

const cases = libraryCases();
const policies = resolvedLibraryPolicies();
let cluster: PolicyCluster | undefined;
let client: ApiClient | undefined;
let namespaces = new Map<string, unknown>();
const compared: { case: PolicyCase & { library: string }; server: Outcome; local: Outcome }[] = [];
/** Whether each accepts the expression: the API server (dry-run create), `manifests`' check (the engine's verdict winning), cel-js alone. */
const compiled: { case: ExpressionCase; server: boolean; manifests: boolean; celJs: boolean }[] = [];

async function judgeCompiles(): Promise<void> {
  for (const c of compileCases()) {
    const options = expressionPolicy(c);
    const { policy, problems } = resolveValidatingPolicyOptions(options, 'ExpressionCase');
    if (!policy) throw new Error(`expression case options refused: ${problems.map((p) => p.message).join('; ')}`);
    const server = (await serverCompiles(client!, 'validatingadmissionpolicies', policyObject(options), c.expression)) === undefined;
    compiled.push({ case: c, server, manifests: checkPolicyExpressions(policy, undefined).length === 0, celJs: checkPolicyExpressions(policy, undefined, { celJsOnly: true }).length === 0 });
  }
}

async function serverOutcome(c: PolicyCase): Promise<Outcome> {
  const answer = await client!.request('POST', `${collectionPath(c.resource, c.object!.metadata.namespace)}?dryRun=All`, c.object);
  if (answer.status < 300) return { allowed: true, code: 200, warnings: answer.warnings.sort() };
  const status = answer.body as { code: number; reason: string; message: string; details?: { causes?: { message: string }[] } };
  return { allowed: false, code: status.code, reason: status.reason, message: status.message, causes: status.details?.causes, warnings: answer.warnings.sort() };
}

function localOutcome(c: PolicyCase): Outcome {
  const { name, namespace } = c.object!.metadata;
  const request = { operation: c.operation, kind: c.kind, resource: c.resource, name, namespace, userInfo: ADMIN, object: c.object, oldObject: null, dryRun: true };
  const results = policies.map((policy) => evaluateValidatingPolicy(policy, { request, namespaceObject: namespaces.get(namespace), authorizer: AUTHZ_RULES }));
  // The API server's recorder sees the request's warnings together (duplicates across policies, the total's truncation).
  const warnings = clientWarnings(results.flatMap((r) => r.warnings)).sort();
  const auditAnnotations = Object.fromEntries(results.flatMap((r) => Object.entries(r.auditAnnotations)).sort(([a], [b]) => a.localeCompare(b)));
  const status = results.find((r) => !r.allowed)?.status;
  if (!status) return { allowed: true, code: 200, warnings, auditAnnotations };
  return { allowed: false, code: status.code, reason: status.reason, message: status.message, causes: [...status.causes], warnings, auditAnnotations };
}

/** Each policy is in force once its first case that it denies or warns about is answered so by the API server. */
async function waitForPolicies(): Promise<void> {
  for (const policy of policies) {
    const canary = cases.find((c) => {
      const outcome = localOutcome(c);
      return c.object!.metadata.namespace === `lib-${c.library}` && policy.name.startsWith(`${c.library}.`) && (!outcome.allowed || outcome.warnings.length > 0);
    });
    if (!canary) throw new Error(`no case shows policy ${policy.name} in force`);
    await waitFor(
      `policy ${policy.name} in force`,
      async () => {
        const outcome = await serverOutcome(canary);
        return !outcome.allowed || outcome.warnings.length > 0 ? true : undefined;
      },
      60_000,
      500,
    );
  }
}

beforeAll(async () => {
  const started = Date.now();
  cluster = await startPolicyCluster('shaper-policy-libraries-', log, async () => undefined, AUDIT_ARGS);
  client = cluster.client;
  namespaces = await createNamespaces(client, LIBRARY_NAMESPACES);
  for (const { path, object } of AUTHZ_RBAC) await ok(client.request('POST', path, object), `creating ${object.kind} ${object.metadata.name}`);
  const resources: Record<string, string> = { ValidatingAdmissionPolicy: 'validatingadmissionpolicies', ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings' };
  for (const object of libraryPolicyObjects()) {
    await ok(client.request('POST', `/apis/admissionregistration.k8s.io/v1/${resources[object.kind]!}`, object), `creating ${object.kind} ${object.metadata.name}`);
  }
  await judgeCompiles();
  await waitForPolicies();
  log(`set up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const c of cases) compared.push({ case: c, server: await serverOutcome(c), local: localOutcome(c) });
  const audited = auditedAnnotations();
  for (const x of compared) {
    const { namespace, name } = x.case.object!.metadata;
    x.server.auditAnnotations = audited.get(`${namespace}/${name}`);
  }
  const libraries = [...new Set(cases.map((c) => c.library))];
  const differing = compared.filter((x) => JSON.stringify(x.server) !== JSON.stringify(x.local));
  console.log(
    `library differential: ${compared.length} cases, ${compared.reduce((n, x) => n + x.server.warnings.length, 0)} warnings, ${compared.filter((x) => !x.server.allowed).length} denials and ` +
      `${compared.reduce((n, x) => n + Object.keys(x.server.auditAnnotations ?? {}).length, 0)} audit annotations from the API server; ` +
      libraries.map((library) => `${library} ${compared.filter((x) => x.case.library === library).length}`).join(', ') +
      `; differences: ${differing.length}; in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
  rmSync(auditDir, { recursive: true, force: true });
});

describe('CEL libraries on the kube-apiserver', () => {
  it("accepts and refuses policy CEL as the API server does: manifests' check, with the engine's verdict winning over cel-js", () => {
    const right = (judge: 'manifests' | 'celJs') => compiled.filter((x) => x[judge] === x.server).length;
    console.log(
      `policy compile cases: ${compiled.length} (${compiled.filter((x) => x.server).length} accepted by the API server); right: manifests ${right('manifests')}, cel-js alone ${right('celJs')}`,
    );
    expect(compiled.filter((x) => x.manifests !== x.server).map((x) => ({ ...x.case, server: x.server }))).toEqual([]);
  });

  it('replays at least 250 library cases, with denials, warnings and errors among them', () => {
    expect(compared.length).toBeGreaterThanOrEqual(250);
    expect(compared.some((x) => !x.server.allowed)).toBe(true);
    expect(compared.some((x) => x.server.warnings.some((w) => w.includes('resulted in error')))).toBe(true);
  });

  it('answers every case locally as the API server does: decision, status, warnings and audit annotations', () => {
    const differences = compared.filter((x) => JSON.stringify(x.server) !== JSON.stringify(x.local)).map((x) => ({ id: x.case.id, server: x.server, local: x.local }));
    expect(differences).toEqual([]);
  });
});
