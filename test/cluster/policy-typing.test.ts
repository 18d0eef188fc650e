/**
 * `object` typed from a built-in kind's schema, judged against the API
 * server's own type check of ValidatingAdmissionPolicies: kube-apiserver
 * 1.37.2 and kube-controller-manager (whose policy status controller types
 * each expression against the kind's schema and writes what fails to
 * `status.typeChecking.expressionWarnings`). For every expression on apps/v1
 * Deployments, v1 Pods and v1 ConfigMaps, `shaper-gen manifests` refuses it
 * exactly when the API server warns (no false errors, no missed ones), but
 * for one difference on purpose: the server's check drops fields whose
 * schema has no type, resource.Quantity's (a container's resources.limits
 * and requests), and warns `undefined field 'limits'`; they exist at
 * admission time, so shaper-gen types them dyn and accepts them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInResourceSchema } from '../../generator/src/kubernetes/built-in-resources.js';
import { checkPolicyExpressions } from '../../generator/src/policy/expressions.js';
import { resolveValidatingPolicyOptions } from '../../runtime/policy/options/policy-resolve.js';
import { startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { startControllers } from '../../support/kindenv/controllers.js';
import type { ManagedProcess } from '../../support/kindenv/processes.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { rawClient, type RawClient } from '../support/raw-client.js';

const log = (line: string) => process.stderr.write(`policy-typing: ${line}\n`);

type Resource = readonly [group: string, version: string, resource: string];
const DEPLOYMENTS: Resource = ['apps', 'v1', 'deployments'];
const PODS: Resource = ['', 'v1', 'pods'];
const CONFIGMAPS: Resource = ['', 'v1', 'configmaps'];

/** Expressions the API server types without a warning. */
const WELL_TYPED: readonly (readonly [Resource, string])[] = [
  [DEPLOYMENTS, 'object.spec.replicas <= 5'],
  [DEPLOYMENTS, "object.spec.template.metadata.labels['app'] == object.metadata.labels['app']"],
  [DEPLOYMENTS, "object.spec.template.spec.containers.all(c, c.image.contains(':') && !c.image.endsWith(':latest'))"],
  [DEPLOYMENTS, "!has(object.spec.strategy.rollingUpdate) || object.spec.strategy.rollingUpdate.maxSurge != '100%'"],
  [DEPLOYMENTS, 'object.spec.template.spec.containers.all(c, !has(c.ports) || c.ports.all(p, p.containerPort > 1024))'],
  [
    DEPLOYMENTS,
    "!has(object.status) || !has(object.status.conditions) || object.status.conditions.all(c, c.type != '' && (!has(c.lastUpdateTime) || c.lastUpdateTime < timestamp('2100-01-01T00:00:00Z')))",
  ],
  [DEPLOYMENTS, 'oldObject == null || object.metadata.creationTimestamp == oldObject.metadata.creationTimestamp'],
  [DEPLOYMENTS, 'oldObject == null || object.spec == oldObject.spec || object.spec.replicas != oldObject.spec.replicas'],
  [DEPLOYMENTS, 'object.spec.selector.matchLabels.all(k, object.spec.template.metadata.labels[k] == object.spec.selector.matchLabels[k])'],
  [DEPLOYMENTS, "object.spec.template.spec.?securityContext.?runAsNonRoot.orValue(false) || object.metadata.name.startsWith('legacy-')"],
  [DEPLOYMENTS, 'object.spec.template.spec.containers.exists(c, has(c.livenessProbe) && has(c.livenessProbe.httpGet) && c.livenessProbe.httpGet.port == 8080)'],
  [PODS, 'object.spec.containers.all(c, !has(c.livenessProbe) || !has(c.livenessProbe.httpGet) || c.livenessProbe.httpGet.port != 0)'],
  [PODS, '!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath))'],
  [PODS, "object.spec.?nodeSelector.orValue({}).all(k, k != 'forbidden')"],
  [CONFIGMAPS, "!has(object.data) || !('password' in object.data)"],
  [CONFIGMAPS, "object.data.?mode.orValue('a') in ['a', 'b']"],
  [CONFIGMAPS, '!has(object.immutable) || object.immutable'],
  [CONFIGMAPS, '!has(object.binaryData) || object.binaryData.all(k, size(object.binaryData[k]) < 1024)'],
];

/** Expressions over quantities: the API server's check warns (it drops their fields), shaper-gen accepts them. */
const QUANTITIES: readonly (readonly [Resource, string])[] = [
  [
    DEPLOYMENTS,
    "object.spec.template.spec.containers.all(c, !has(c.resources.requests) || !('memory' in c.resources.requests) || quantity(c.resources.requests['memory']).isLessThan(quantity('1Gi')))",
  ],
  [PODS, "object.spec.containers.all(c, !has(c.resources.limits) || !('cpu' in c.resources.limits) || quantity(c.resources.limits['cpu']).isLessThan(quantity('4')))"],
];

/** Expressions the API server's type check warns about. */
const ILL_TYPED: readonly (readonly [Resource, string])[] = [
  [DEPLOYMENTS, 'object.spec.replica >= 1'],
  [DEPLOYMENTS, "object.spec.replicas == 'three'"],
  [DEPLOYMENTS, "object.spec.template.spec.containers.all(c, c.imag != '')"],
  [DEPLOYMENTS, "object.metadata.labelz['a'] == 'b'"],
  [DEPLOYMENTS, "object.spec.template.metadata.labels['a'] == 1"],
  [DEPLOYMENTS, 'object.spec.paused + 1 > 0'],
  [PODS, 'object.spec.containers[0].ports[0].protocol == 6'],
  [PODS, 'object.spec.nodeNam == "x"'],
  [CONFIGMAPS, "object.spec.data == 'x'"],
  [CONFIGMAPS, "object.data['a'] > 1"],
];

let dir: string | undefined;
let controlPlane: ControlPlane | undefined;
let controllers: ManagedProcess[] = [];
let api: RawClient | undefined;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-policy-typing-'));
  controlPlane = await startControlPlane({ dir, hostAddress: '127.0.0.1', log, certManager: false });
  controllers = await startControllers(controlPlane, dir, log);
  api = rawClient(controlPlane);
});

afterAll(async () => {
  api?.close();
  for (const process of controllers) await process.stop();
  await controlPlane?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function rulesOf([group, version, resource]: Resource) {
  return [{ groups: [group], versions: [version], resources: [resource], operations: ['CREATE', 'UPDATE'] }];
}

/** Whether `shaper-gen manifests`' typed check refuses the expression. */
function oursRefuses(resource: Resource, expression: string): boolean {
  const { policy } = resolveValidatingPolicyOptions({ name: 'typing.shaper-gen.io', rules: rulesOf(resource), validations: [{ expression }] }, 'Typing');
  return checkPolicyExpressions(policy!, builtInResourceSchema(...resource)).length > 0;
}

/** Whether the API server's type check warns about the expression, as the policy's status says. */
async function serverWarns(name: string, [group, version, resource]: Resource, expression: string): Promise<string[]> {
  const created = await api!.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [group], apiVersions: [version], resources: [resource], operations: ['CREATE', 'UPDATE'] }] },
      validations: [{ expression }],
    },
  });
  expect(created.status, created.text).toBe(201);
  return waitFor(
    `the type check of ${name}`,
    async () => {
      const read = (await api!.request('GET', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${name}`)).json as {
        metadata: { generation: number };
        status?: { observedGeneration?: number; typeChecking?: { expressionWarnings?: { warning: string }[] } };
      };
      if (read.status?.observedGeneration !== read.metadata.generation || !read.status.typeChecking) return undefined;
      return (read.status.typeChecking.expressionWarnings ?? []).map((w) => w.warning);
    },
    30_000,
  );
}

describe("object typed from a built-in kind's schema", () => {
  it("refuses exactly what the API server's own type check warns about", async () => {
    const cases = [
      ...WELL_TYPED.map(([r, e]) => [r, e, { server: false, ours: false }] as const),
      ...QUANTITIES.map(([r, e]) => [r, e, { server: true, ours: false }] as const),
      ...ILL_TYPED.map(([r, e]) => [r, e, { server: true, ours: true }] as const),
    ];
    const unexpected = [];
    for (const [index, [resource, expression, expected]] of cases.entries()) {
      const warnings = await serverWarns(`typing-${index}.shaper-gen.io`, resource, expression);
      const verdict = { server: warnings.length > 0, ours: oursRefuses(resource, expression) };
      if (verdict.server !== expected.server || verdict.ours !== expected.ours) unexpected.push({ resource: resource.join('/'), expression, expected, verdict, warnings });
    }
    log(`${cases.length} expressions: ${WELL_TYPED.length} well typed, ${ILL_TYPED.length} ill typed, ${QUANTITIES.length} over quantities; ${unexpected.length} unexpected verdicts`);
    expect(unexpected).toEqual([]);
  });
});
