/**
 * `serve` enforcing policies itself (policies.served): real HTTPS requests to
 * a `serve --dev` process, each policy's AdmissionReview answered by the API
 * server's own policy plugin in the CEL engine — the refusal as the plugin
 * words it (with its causes), warnings, audit annotations keyed for the
 * entry, and a mutation as a JSON patch. test/cluster/served-policies.test.ts
 * compares such answers with the API server's own on 840 requests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../support/free-port.js';
import { request } from '../../support/admission-server.js';
import { serve, waitReady, type ServeProcess } from '../../support/serve-process.js';

const VALIDATING = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: names.example.com }
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }]
  validations:
    - expression: "object.metadata.name.startsWith('a')"
      message: a ConfigMap's name starts with a
  auditAnnotations:
    - key: named
      valueExpression: "'named ' + string(object.metadata.name)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: names.example.com }
spec: { policyName: names.example.com, validationActions: [Deny] }
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: names-warn.example.com }
spec: { policyName: names.example.com, validationActions: [Warn] }
`;
const MUTATING = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: { name: seen.example.com }
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{metadata: Object.metadata{labels: {'seen': 'yes'}}}"
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: { name: seen.example.com }
spec: { policyName: seen.example.com }
`;

let dir: string;
let server: ServeProcess;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-served-'));
  [port] = [await freePort()];
  const health = await freePort();
  const config = {
    apiVersion: 'shaper-gen.io/v1alpha1',
    kind: 'ServerConfig',
    handlers: [],
    policies: {
      served: [
        { path: '/validate-policy-names.example.com', objects: VALIDATING },
        { path: '/mutate-policy-seen.example.com', objects: MUTATING },
      ],
    },
  };
  writeFileSync(path.join(dir, 'config.yaml'), JSON.stringify(config));
  writeFileSync(path.join(dir, 'objects.yaml'), 'namespaces:\n  - { apiVersion: v1, kind: Namespace, metadata: { name: team-a } }\ncustomresourcedefinitions.apiextensions.k8s.io: []\n');
  server = serve([
    '--dev',
    '--config',
    path.join(dir, 'config.yaml'),
    '--objects',
    path.join(dir, 'objects.yaml'),
    '--port',
    String(port),
    '--health-port',
    String(health),
    '--metrics-port',
    '0',
  ]);
  await waitReady(health, server);
}, 60_000);

afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
});

function review(name: string) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `uid-${name}`,
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      name,
      namespace: 'team-a',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-a' }, data: { k: 'v' } },
      dryRun: false,
    },
  };
}

async function post(urlPath: string, body: unknown) {
  const payload = JSON.stringify(body);
  const answer = await request(
    https,
    { host: '127.0.0.1', port, path: urlPath, method: 'POST', rejectUnauthorized: false, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } },
    payload,
  );
  return { status: answer.status, json: answer.json as { response: Record<string, unknown> } };
}

describe('a policy served by serve', () => {
  it('refuses as the API server words it, with the Warn binding’s warning and the audit annotation keyed for the entry', async () => {
    const denial = "configmaps \"bad\" is forbidden: ValidatingAdmissionPolicy 'names.example.com' with binding 'names.example.com' denied request: a ConfigMap's name starts with a";
    expect(await post('/validate-policy-names.example.com', review('bad'))).toEqual({
      status: 200,
      json: {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: 'uid-bad',
          allowed: false,
          status: {
            metadata: {},
            status: 'Failure',
            code: 422,
            reason: 'Invalid',
            message: denial,
            details: {
              name: 'bad',
              kind: 'configmaps',
              causes: [{ message: "ValidatingAdmissionPolicy 'names.example.com' with binding 'names.example.com' denied request: a ConfigMap's name starts with a" }],
            },
          },
          warnings: ["Validation failed for ValidatingAdmissionPolicy 'names.example.com' with binding 'names-warn.example.com': a ConfigMap's name starts with a"],
          auditAnnotations: { named: 'named bad' },
        },
      },
    });
  });

  it('allows what the policy allows, with its audit annotation', async () => {
    expect(await post('/validate-policy-names.example.com', review('apple'))).toEqual({
      status: 200,
      json: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-apple', allowed: true, auditAnnotations: { named: 'named apple' } } },
    });
  });

  it('answers a MutatingAdmissionPolicy (v1beta1 as rendered for 1.34 and 1.35) with the JSON patch of its ApplyConfiguration', async () => {
    const { status, json } = await post('/mutate-policy-seen.example.com', review('apple'));
    expect(status).toBe(200);
    const { patch, ...response } = json.response;
    expect(response).toEqual({ uid: 'uid-apple', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(patch as string, 'base64').toString('utf8'))).toEqual([{ op: 'add', path: '/metadata/labels', value: { seen: 'yes' } }]);
  });

  it('refuses a configuration whose objects are not a policy with its bindings, in one line, and does not start', async () => {
    writeFileSync(
      path.join(dir, 'bad.yaml'),
      JSON.stringify({ apiVersion: 'shaper-gen.io/v1alpha1', kind: 'ServerConfig', handlers: [], policies: { served: [{ path: '/validate-policy-x', objects: VALIDATING.split('---')[0] }] } }),
    );
    const bad = serve(['--dev', '--config', path.join(dir, 'bad.yaml'), '--port', '0', '--health-port', '0', '--metrics-port', '0']);
    expect([await bad.exited, bad.output()]).toEqual([
      1,
      'shaper-gen serve: policies.served[0].objects: no ValidatingAdmissionPolicyBinding for names.example.com: a policy without a binding does nothing\n',
    ]);
  });
});
