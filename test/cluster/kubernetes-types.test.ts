/**
 * CRD fields typed with @kubernetes/client-node models, expanded to
 * Kubernetes 1.37's schemas, against the real kube-apiserver (etcd and
 * kube-apiserver only): the CRD, with a PodTemplateSpec, a JobTemplateSpec,
 * an ObjectReference, Conditions and CEL rules over the template's containers
 * and bounded sidecars, is created with strict field validation (structural,
 * and within the CEL cost budget) and becomes Established; an object with a full pod template reads
 * back as the API server stores a Pod's fields: defaults applied, unknown
 * fields pruned, quantities and int-or-strings either way; what the Pod
 * schema forbids is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runManifests } from '../../generator/src/manifests/run-manifests.js';
import { startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { createFixtureProject, type FixtureProject } from '../support/fixture-project.js';
import { helmTemplate, type K8sObject } from '../support/helm.js';
import { rawClient, type RawClient } from '../support/raw-client.js';

const log = (line: string) => process.stderr.write(`kubernetes-types: ${line}\n`);

const RUNNER = `import type { V1Condition, V1Container, V1JobTemplateSpec, V1ObjectReference, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { KubernetesObject } from 'shaper-gen';

/**
 * Runs pods from a template.
 * @shaper:resource
 * @shaper:subresource status
 */
export interface Runner extends KubernetesObject {
  spec: {
    /**
     * The pods to run; their metadata keeps labels and annotations.
     * @shaper:embeddedObjectMeta
     * @shaper:validation rule="self.spec.containers.all(c, !c.image.endsWith(':latest'))" message="pin images"
     */
    template: V1PodTemplateSpec;
    /** @shaper:maxDescLen 0 */
    job?: V1JobTemplateSpec;
    target?: V1ObjectReference;
    /**
     * Containers added to every pod.
     * @shaper:maxItems 4
     * @shaper:validation rule="self.all(c, !c.image.endsWith(':latest'))" message="pin sidecar images"
     */
    sidecars?: V1Container[];
  };
  status?: {
    /**
     * @shaper:listType map
     * @shaper:listMapKey type
     * @shaper:maxItems 8
     */
    conditions?: V1Condition[];
  };
}
`;

let dir: string | undefined;
let controlPlane: ControlPlane | undefined;
let project: FixtureProject | undefined;
let api: RawClient | undefined;
let crd: K8sObject | undefined;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-k8s-types-'));
  project = createFixtureProject({
    'src/api/group.ts': "/** @shaper:groupName */\nexport const GROUP = 'runners.example.com';\n/** @shaper:versionName */\nexport const VERSION = 'v1';\n",
    'src/api/runner.ts': RUNNER,
  });
  const generate = async () => {
    const quiet = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      expect(await runManifests({}, project!.dir)).toBe(0);
    } finally {
      quiet.mockRestore();
    }
    return (await helmTemplate(project!.file('charts/shaper-webhooks'))).filter((o) => o.kind === 'CustomResourceDefinition');
  };
  const [plane, crds] = await Promise.all([startControlPlane({ dir, hostAddress: '127.0.0.1', log, certManager: false }), generate()]);
  controlPlane = plane;
  api = rawClient(plane);
  expect(crds.map((c) => c.metadata.name)).toEqual(['runners.runners.example.com']);
  crd = crds[0];
  log(`the generated CRD: ${project.read('charts/shaper-webhooks/templates/crds/runners.example.com_runners.yaml').split('\n').length} lines`);
});

afterAll(async () => {
  api?.close();
  await controlPlane?.stop();
  project?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const container = { name: 'app', image: 'registry.example/app:1.2', ports: [{ containerPort: 8080 }], resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: 1 } } };

describe('a CRD with Kubernetes types in its schema', () => {
  it('is created with strict field validation and becomes Established, its schema as generated', async () => {
    const created = await api!.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldValidation=Strict', crd);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.warning).toBeUndefined();
    const stored = await waitFor(
      'runners.runners.example.com to be Established',
      async () => {
        const read = (await api!.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/runners.runners.example.com')).json as K8sObject;
        return (read.status?.conditions as { type: string; status: string }[] | undefined)?.some((c) => c.type === 'Established' && c.status === 'True') ? read : undefined;
      },
      30_000,
    );
    expect(stored.spec.versions).toEqual(crd!.spec.versions);
  });

  it('stores a Runner as a Pod is stored: defaults applied, unknown fields pruned, template labels kept', async () => {
    const runner = {
      apiVersion: 'runners.example.com/v1',
      kind: 'Runner',
      metadata: { name: 'r', namespace: 'default' },
      spec: {
        template: {
          metadata: { labels: { app: 'r' }, annotations: { note: 'kept' } },
          spec: {
            containers: [{ ...container, undeclared: 'pruned', livenessProbe: { httpGet: { port: 'http', path: '/healthz' } } }],
            tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
        job: { metadata: { labels: { pruned: 'without embeddedObjectMeta' } }, spec: { backoffLimit: 2, template: { spec: { containers: [container], restartPolicy: 'Never' } } } },
        target: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
        sidecars: [{ name: 'proxy', image: 'registry.example/proxy:3' }],
      },
    };
    const created = await api!.request('POST', '/apis/runners.example.com/v1/namespaces/default/runners', runner);
    expect(created.status, created.text).toBe(201);
    const withProtocol = { ...container, ports: [{ containerPort: 8080, protocol: 'TCP' }] };
    expect((created.json as K8sObject).spec).toEqual({
      template: {
        metadata: { labels: { app: 'r' }, annotations: { note: 'kept' } },
        spec: {
          containers: [{ ...withProtocol, livenessProbe: { httpGet: { port: 'http', path: '/healthz' } } }],
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
      job: { metadata: {}, spec: { backoffLimit: 2, template: { spec: { containers: [withProtocol], restartPolicy: 'Never' } } } },
      target: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      sidecars: [{ name: 'proxy', image: 'registry.example/proxy:3' }],
    });
  });

  it("refuses what the Pod schema and the Runner's rules forbid, with the API server's messages", async () => {
    const refusals: Record<string, Record<string, unknown>> = {
      'no containers': { template: { spec: {} } },
      'duplicate container name': { template: { spec: { containers: [container, container] } } },
      'a number where a string goes': { template: { spec: { containers: [{ ...container, image: 7 }] } } },
      'a bad quantity': { template: { spec: { containers: [{ ...container, resources: { limits: { cpu: 'lots' } } }] } } },
      // As in controller-gen's CRDs: int-or-string is an integer or a string; a Pod would take 0.5.
      'a fractional quantity': { template: { spec: { containers: [{ ...container, resources: { limits: { cpu: 0.5 } } }] } } },
      'too many sidecars': { template: { spec: { containers: [container] } }, sidecars: [1, 2, 3, 4, 5].map((i) => ({ name: `s${i}`, image: 'x:1' })) },
      'an unpinned image': { template: { spec: { containers: [{ ...container, image: 'app:latest' }] } } },
      'an unpinned sidecar': { template: { spec: { containers: [container] } }, sidecars: [{ name: 's', image: 'x:latest' }] },
    };
    const messages: Record<string, string> = {};
    for (const [name, spec] of Object.entries(refusals)) {
      const body = { apiVersion: 'runners.example.com/v1', kind: 'Runner', metadata: { name: `refused-${Object.keys(messages).length}`, namespace: 'default' }, spec };
      const response = await api!.request('POST', '/apis/runners.example.com/v1/namespaces/default/runners', body);
      expect(response.status, `${name}: ${response.text}`).toBe(422);
      messages[name] = (response.json as { message: string }).message.replace(/^Runner\.runners\.example\.com "refused-\d+" is invalid: /, '');
    }
    const skipped = '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
    const cpu = 'spec.template.spec.containers[0].resources.limits.cpu';
    const quantityPattern = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
    expect(messages).toEqual({
      'no containers': `[spec.template.spec.containers: Required value, ${skipped}]`,
      'duplicate container name': 'spec.template.spec.containers[1]: Duplicate value: {"name":"app"}',
      'a number where a string goes': `[spec.template.spec.containers[0].image: Invalid value: "integer": spec.template.spec.containers[0].image in body must be of type string: "integer", ${skipped}]`,
      'a bad quantity': `${cpu}: Invalid value: "lots": ${cpu} in body should match '${quantityPattern}'`,
      'a fractional quantity': `[${cpu}: Invalid value: "number": ${cpu} in body must be of type integer,string: "number", <nil>: Invalid value: "": "${cpu}" must validate at least one schema (anyOf), ${cpu}: Invalid value: "number": ${cpu} in body must be of type integer: "number", <nil>: Invalid value: "": Checked value must be of type integer (default format) in ${cpu}, ${skipped}]`,
      'too many sidecars': `[spec.sidecars: Too many: 5: must have at most 4 items, ${skipped}]`,
      'an unpinned image': 'spec.template: Invalid value: pin images',
      'an unpinned sidecar': 'spec.sidecars: Invalid value: pin sidecar images',
    });
  });
});
