/**
 * The chart and the server together in a real cluster: the API server calls
 * shaper-gen serve through the chart's Service, EndpointSlice and the CA that
 * cert-manager issued and injected. What users see, through @kubernetes/client-node.
 */
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  AdmissionregistrationV1Api,
  ApiextensionsV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deniedBy, rejection } from '../../support/kindenv/admission-status.js';
import { installSample } from '../../support/kindenv/sample.js';
import { createKindEnv, FULLNAME, RELEASE_NAMESPACE, type InstallResult, type KindEnv } from '../../support/kindenv/index.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { httpText } from '../../support/http-text.js';
import { tool } from '../../support/kindenv/tools.js';

const run = promisify(execFile);

const NS = 'team-a';
const group = 'shaper.io';
const version = 'v1alpha1';
let env: KindEnv;
let install: InstallResult;
let objects: CustomObjectsApi;

const profile = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: `${group}/${version}`, kind: 'Profile', metadata: { name, namespace: NS }, spec });
const assignment = (name: string, spec: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: `${group}/${version}`,
  kind: 'Assignment',
  metadata: { name, namespace: NS, ...(labels && { labels }) },
  spec,
});

beforeAll(async () => {
  env = await createKindEnv();
  try {
    // The webhooks alone: the sample's ValidatingAdmissionPolicies check the tier too, and the API server runs
    // them before the webhooks, so their denial would come first (policies.test.ts covers them).
    ({ install, objects } = await installSample(env, NS, { 'policies.enabled': false }));
  } catch (error) {
    process.stderr.write(`setup failed: ${(error as Error).message}\n${JSON.stringify((error as { body?: unknown }).body ?? '')}\n`);
    process.stderr.write(
      `--- kube-apiserver ---\n${env.logs('kube-apiserver')}\n--- cert-manager ---\n${env.logs('cert-manager')}\n--- kubelet ---\n${env.logs('kubelet')}\n--- serve ---\n${env.logs('serve')}\n`,
    );
    await env.stop();
    throw error;
  }
});
afterAll(() => (env as KindEnv | undefined)?.stop());

describe('the installed chart', () => {
  it('was admitted into a Pod Security "restricted" namespace without warnings', async () => {
    expect(install.stderr).not.toMatch(/PodSecurity|would violate/i);
    // The same check, made observable: the chart's Deployment passes the restricted profile with no
    // Warning header, while a variant that allows privilege escalation draws one.
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    const deployment = await apps.readNamespacedDeployment({ name: FULLNAME, namespace: RELEASE_NAMESPACE });
    const copy = (name: string, escalating: boolean): V1Deployment => {
      const body = structuredClone({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: RELEASE_NAMESPACE }, spec: deployment.spec });
      if (escalating) body.spec!.template.spec!.containers[0]!.securityContext = { allowPrivilegeEscalation: true };
      return body;
    };
    const clean = await apps.createNamespacedDeploymentWithHttpInfo({ namespace: RELEASE_NAMESPACE, body: copy('restricted-check', false), dryRun: 'All' });
    expect(clean.headers.warning).toBeUndefined();
    const escalating = await apps.createNamespacedDeploymentWithHttpInfo({ namespace: RELEASE_NAMESPACE, body: copy('escalation-check', true), dryRun: 'All' });
    expect(escalating.headers.warning).toMatch(/would violate PodSecurity \\"restricted:latest\\": allowPrivilegeEscalation != false/);
  });

  it('serves ready, every expected path registered, with the certificate cert-manager issued', async () => {
    const ready = await env.readyz();
    expect(ready.status).toBe(200);
    expect(ready.text).toContain('[+]handlers ok');
    expect(ready.text).toContain('[+]certificate ok');
    expect(ready.text).toContain('[+]cache ok');
  });

  it("gives the server's ServiceAccount exactly get, list and watch on profiles (the validator's cache)", async () => {
    const authz = env.kubeConfig.makeApiClient(AuthorizationV1Api);
    const can = async (verb: string, resource: string, apiGroup = group) =>
      (
        await authz.createSubjectAccessReview({
          body: { spec: { user: `system:serviceaccount:${RELEASE_NAMESPACE}:${FULLNAME}`, resourceAttributes: { namespace: NS, verb, group: apiGroup, resource } } },
        })
      ).status!.allowed;
    for (const verb of ['get', 'list', 'watch']) expect(await can(verb, 'profiles'), verb).toBe(true);
    expect(await can('create', 'profiles')).toBe(false);
    expect(await can('get', 'secrets', '')).toBe(false);
  });
});

describe('/mutate-profile', () => {
  it('defaults a Profile created without defaults, and re-applying it changes nothing', async () => {
    const created = (await objects.createNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', body: profile('fast', { tier: 'gold' }) })) as KubernetesObject & {
      spec: any;
    };
    expect(created.spec).toEqual({ tier: 'gold', priority: 900 });
    expect(created.metadata!.labels).toEqual({ 'shaper.io/tier': 'gold' });
    const reapplied = (await objects.replaceNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', name: 'fast', body: created })) as KubernetesObject & { spec: any };
    expect(reapplied.spec).toEqual(created.spec);
    expect(reapplied.metadata!.labels).toEqual(created.metadata!.labels);
    expect(reapplied.metadata!.generation).toBe(created.metadata!.generation);
  });

  it('and /validate-profile denies changing the tier, with the field cause', async () => {
    const status = await rejection(
      objects.patchNamespacedCustomObject(
        { group, version, namespace: NS, plural: 'profiles', name: 'fast', body: { spec: { tier: 'silver' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(status).toEqual(
      deniedBy('validate-profile.shaper.io', {
        code: 422,
        reason: 'Invalid',
        message: 'Profile.shaper.io "fast" is invalid: spec.tier: Invalid value: "silver": field is immutable (was "gold"); create a new Profile instead',
        details: {
          name: 'fast',
          group: 'shaper.io',
          kind: 'Profile',
          causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "silver": field is immutable (was "gold"); create a new Profile instead', field: 'spec.tier' }],
        },
      }),
    );
  });
});

describe('/validate-assignment (with /mutate-assignment)', () => {
  it('denies an Assignment whose Profile does not exist, with the handler message', async () => {
    const status = await rejection(
      objects.createNamespacedCustomObject({
        group,
        version,
        namespace: NS,
        plural: 'assignments',
        body: assignment('web', { profileRef: { name: 'missing' }, selector: { matchLabels: { app: 'web' } } }),
      }),
    );
    expect(status).toEqual(
      deniedBy('validate-assignment.shaper.io', {
        code: 422,
        reason: 'Invalid',
        message: 'Assignment.shaper.io "web" is invalid: spec.profileRef.name: Not found: "missing": Profile "missing" does not exist in namespace "team-a"',
        details: {
          name: 'web',
          group: 'shaper.io',
          kind: 'Assignment',
          causes: [{ reason: 'FieldValueNotFound', message: 'Not found: "missing": Profile "missing" does not exist in namespace "team-a"', field: 'spec.profileRef.name' }],
        },
      }),
    );
  });

  it('admits it once the Profile exists (the lookup runs with the chart ServiceAccount), weight defaulted', async () => {
    const created = (await objects.createNamespacedCustomObject({
      group,
      version,
      namespace: NS,
      plural: 'assignments',
      body: assignment('web', { profileRef: { name: 'fast' }, selector: { matchLabels: { app: 'web' } } }, { 'shaper.io/protected': 'true' }),
    })) as { spec: { weight: number } };
    expect(created.spec.weight).toBe(50);
  });

  it('denies changing profileRef on update, with the field cause', async () => {
    const status = await rejection(
      objects.patchNamespacedCustomObject(
        { group, version, namespace: NS, plural: 'assignments', name: 'web', body: { spec: { profileRef: { name: 'other' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    const cause = 'Invalid value: "other": field is immutable (was "fast"); create a new Assignment instead';
    expect(status).toEqual(
      deniedBy('validate-assignment.shaper.io', {
        code: 422,
        reason: 'Invalid',
        message: `Assignment.shaper.io "web" is invalid: spec.profileRef.name: ${cause}`,
        details: { name: 'web', group: 'shaper.io', kind: 'Assignment', causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'spec.profileRef.name' }] },
      }),
    );
  });

  it('denies deleting a protected Assignment, and allows it once unprotected', async () => {
    const status = await rejection(objects.deleteNamespacedCustomObject({ group, version, namespace: NS, plural: 'assignments', name: 'web' }));
    expect(status).toEqual(
      deniedBy('validate-assignment.shaper.io', {
        code: 403,
        reason: 'Forbidden',
        message: 'Assignment "web" is protected: remove the shaper.io/protected label before deleting it',
      }),
    );
    await objects.patchNamespacedCustomObject(
      { group, version, namespace: NS, plural: 'assignments', name: 'web', body: { metadata: { labels: { 'shaper.io/protected': null } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await objects.deleteNamespacedCustomObject({ group, version, namespace: NS, plural: 'assignments', name: 'web' });
  });

  it('returns warnings as Warning headers', async () => {
    const response = await objects.createNamespacedCustomObjectWithHttpInfo({
      group,
      version,
      namespace: NS,
      plural: 'assignments',
      body: assignment('heavy', { profileRef: { name: 'fast' }, selector: { matchLabels: { app: 'api' } }, weight: 100 }),
    });
    expect(response.httpStatusCode).toBe(201);
    expect(response.headers.warning).toBe('299 - "spec.weight is 100, the maximum: this profile overrides every other assignment"');
  });
});

describe('server-side dry-run', () => {
  it('reaches the webhooks and persists nothing', async () => {
    const dryRun = (await objects.createNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', body: profile('dry'), dryRun: 'All' })) as { spec: any };
    expect(dryRun.spec).toEqual({ tier: 'bronze', priority: 100 });
    const status = await rejection(objects.getNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', name: 'dry' }));
    expect(status.code).toBe(404);
    const denied = await rejection(
      objects.createNamespacedCustomObject({
        group,
        version,
        namespace: NS,
        plural: 'assignments',
        body: assignment('dry', { profileRef: { name: 'missing' }, selector: { matchLabels: { a: 'b' } } }),
        dryRun: 'All',
      }),
    );
    expect(denied).toEqual(
      deniedBy('validate-assignment.shaper.io', {
        code: 422,
        reason: 'Invalid',
        message: 'Assignment.shaper.io "dry" is invalid: spec.profileRef.name: Not found: "missing": Profile "missing" does not exist in namespace "team-a"',
        details: {
          name: 'dry',
          group: 'shaper.io',
          kind: 'Assignment',
          causes: [{ reason: 'FieldValueNotFound', message: 'Not found: "missing": Profile "missing" does not exist in namespace "team-a"', field: 'spec.profileRef.name' }],
        },
      }),
    );
  });
});

describe('admissionReviewVersions: [v1beta1]', () => {
  it('round-trips: the API server sends v1beta1 and accepts the v1beta1 answer', async () => {
    await addConfigMapWebhook({ name: 'v1beta1', admissionReviewVersions: ['v1beta1'], failurePolicy: 'Fail' });
    // /validate-profile judges the ConfigMap as a Profile: no spec, so "spec: Required value".
    const status = await waitFor(
      'the v1beta1 webhook to take effect',
      async () => {
        const result = await rejection(
          env.kubeConfig
            .makeApiClient(CoreV1Api)
            .createNamespacedConfigMap({ namespace: NS, body: { metadata: { generateName: 'probe-', labels: { 'kindenv.shaper-gen.io/v1beta1': 'true' } } } }),
        ).catch(() => undefined);
        return result;
      },
      20_000,
      500,
    );
    // generateName: the API server names the object before admission, so the name is probe-<random>.
    const name = /^probe-[a-z0-9]{5}$/.exec(status.details?.name ?? '')?.[0];
    expect(status).toEqual(
      deniedBy('v1beta1.kindenv.shaper.io', {
        code: 422,
        reason: 'Invalid',
        message: `ConfigMap "${name}" is invalid: spec: Required value`,
        details: { name, kind: 'ConfigMap', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec' }] },
      }),
    );
  });
});

describe('probes and metrics, where the rendered Deployment says', () => {
  it('answers liveness, readiness and startup probes at their declared paths and ports, and /metrics counts the real calls', async () => {
    const deployment = await env.kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: FULLNAME, namespace: RELEASE_NAMESPACE });
    const container = deployment.spec!.template.spec!.containers[0]!;
    const portNumber = (port: number | string) => (typeof port === 'number' ? port : container.ports!.find((p) => p.name === port)!.containerPort);
    const pods = await env.pods();
    expect(pods.length).toBeGreaterThan(0);
    for (const pod of pods) {
      for (const probe of [container.livenessProbe!, container.readinessProbe!, container.startupProbe!]) {
        const res = await httpText(pod.address, portNumber(probe.httpGet!.port), probe.httpGet!.path!);
        expect(res.status, `${pod.name} ${probe.httpGet!.path}`).toBe(200);
      }
    }
    const metrics = await allMetrics(portNumber('metrics'));
    // The missing-Profile create and its dry-run twin: two denials with code 422, nothing else on that series.
    expect(metrics.sum('shaper_webhook_requests_total{webhook="/validate-assignment",operation="CREATE",allowed="false",code="422"}')).toBe(2);
    expect(metrics.sum('shaper_webhook_requests_total{webhook="/mutate-profile",operation="CREATE",allowed="true",code="200"}')).toBeGreaterThan(0);
    for (const text of metrics.texts) expect(text).toMatch(/shaper_webhook_certificate_expiry_timestamp_seconds \d{10}/);
  });
});

describe('certificate rotation', () => {
  it('re-issues like `cmctl renew`, the new files reach every pod (the kubelet updates the Secret volume), every request succeeds, then every pod serves the new certificate', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const secretName = `${FULLNAME}-serving-cert`;
    const pods = await env.pods();
    const issuedBefore = (await core.readNamespacedSecret({ name: secretName, namespace: RELEASE_NAMESPACE })).data!['tls.crt'];

    // Admission calls through the API server for as long as the rotation takes (bounded count).
    let failures = 0;
    let calls = 0;
    let rotating = true as boolean; // the rotation below ends it
    const traffic = (async () => {
      while (rotating && calls < 2000) {
        calls++;
        await objects.createNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', body: profile(`rotation-${calls}`), dryRun: 'All' }).catch(() => failures++);
      }
    })();

    // What `cmctl renew` does: set the Certificate's Issuing condition.
    const certificate = (await objects.getNamespacedCustomObject({ group: 'cert-manager.io', version: 'v1', namespace: RELEASE_NAMESPACE, plural: 'certificates', name: secretName })) as {
      status: { conditions: { type: string }[] };
    };
    const conditions = [
      ...certificate.status.conditions.filter((c) => c.type !== 'Issuing'),
      { type: 'Issuing', status: 'True', reason: 'ManuallyTriggered', message: 'Certificate re-issuance manually triggered', lastTransitionTime: new Date().toISOString() },
    ];
    await objects.patchNamespacedCustomObjectStatus(
      { group: 'cert-manager.io', version: 'v1', namespace: RELEASE_NAMESPACE, plural: 'certificates', name: secretName, body: { status: { conditions } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const issued = await waitFor(
      'cert-manager to re-issue the serving certificate',
      async () => {
        const data = (await core.readNamespacedSecret({ name: secretName, namespace: RELEASE_NAMESPACE })).data!['tls.crt'];
        return data !== issuedBefore ? data : undefined;
      },
      60_000,
      250,
    );
    await env.syncServingSecret();
    const issuedCertificate = new X509Certificate(Buffer.from(issued, 'base64'));
    for (const pod of pods) {
      await waitFor(
        `${pod.name} to serve the new certificate`,
        async () => {
          const served = await servedCertificate(pod.address, 9443);
          return served.raw.equals(issuedCertificate.raw) ? true : undefined;
        },
        90_000,
        250,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    rotating = false;
    await traffic;

    expect(calls).toBeGreaterThan(10);
    expect(failures).toBe(0);
  });
});

describe("/validate-assignment's Profile cache", () => {
  const createAssignment = (name: string, profileName: string) =>
    objects.createNamespacedCustomObject({
      group,
      version,
      namespace: NS,
      plural: 'assignments',
      body: assignment(name, { profileRef: { name: profileName }, selector: { matchLabels: { app: name } } }),
    });
  const createProfile = (name: string) => objects.createNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', body: profile(name, { tier: 'silver' }) });
  let counter = 0;
  /** Creates Assignments for the Profile until one is answered from the cache (bounded): proves the watch delivered it. */
  const admittedFromCache = async (profileName: string) => {
    await waitFor(
      `an Assignment for ${profileName} admitted from the cache`,
      async () => {
        const before = await cacheReads();
        await createAssignment(`from-cache-${++counter}`, profileName);
        const after = await cacheReads();
        return after.cache === before.cache + 1 && after.miss === before.miss ? true : undefined;
      },
      30_000,
      200,
    );
  };
  /** Creates Assignments for the Profile until one is denied as not found (bounded): proves the deletion reached the cache. */
  const deniedAsMissing = async (profileName: string) => {
    const status = await waitFor(
      `an Assignment for deleted ${profileName} denied`,
      async () => {
        const answer = await createAssignment(`after-delete-${++counter}`, profileName).then(
          () => undefined,
          (error: unknown) => error,
        );
        return answer === undefined ? undefined : rejection(Promise.reject(answer));
      },
      30_000,
      200,
    );
    expect(status).toMatchObject({ code: 422, message: expect.stringContaining(`Profile "${profileName}" does not exist in namespace "team-a"`) });
  };

  it('admits an Assignment created right after its Profile: a miss is read from the API server, never denied for lag', async () => {
    const before = await cacheReads();
    for (let i = 0; i < 10; i++) {
      await createProfile(`burst-${i}`);
      await createAssignment(`burst-${i}`, `burst-${i}`);
    }
    const after = await cacheReads();
    expect(after.cache + after.miss - before.cache - before.miss).toBe(10);
  });

  it('answers from the cache once the watch delivered the Profile, and sees a deleted Profile as gone', async () => {
    await createProfile('cached');
    await admittedFromCache('cached');
    await objects.deleteNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', name: 'cached' });
    await deniedAsMissing('cached');
  });

  it('resumes its watch after the API server restarts, and stays ready throughout', async () => {
    await createProfile('before-restart');
    await admittedFromCache('before-restart');
    await env.restartApiServer();
    expect((await env.readyz()).status).toBe(200);
    // Created and deleted after the restart: only a resumed watch (or a relist) brings these to the cache.
    await createProfile('after-restart');
    await admittedFromCache('after-restart');
    await objects.deleteNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', name: 'before-restart' });
    await deniedAsMissing('before-restart');
    expect(env.logs('serve', 100_000)).toMatch(/cache watch re-established/);
  });
});

/** ctx.cache reads of Profiles so far, by where they were answered, from the server's /metrics. */
async function cacheReads(): Promise<Record<'cache' | 'miss' | 'live' | 'stale', number>> {
  const metrics = await allMetrics(8080);
  const count = (source: string) => metrics.sum(`shaper_webhook_cache_reads_total{resource="profiles.shaper.io",source="${source}"}`);
  return { cache: count('cache'), miss: count('miss'), live: count('live'), stale: count('stale') };
}

/** Every server pod's /metrics: the texts, and a series summed over the pods (each pod counts what it answered). */
async function allMetrics(port: number): Promise<{ texts: string[]; sum(series: string): number }> {
  const texts = await Promise.all((await env.pods()).map(async (pod) => (await httpText(pod.address, port, '/metrics')).text));
  return {
    texts,
    sum: (series) =>
      texts.reduce((total, text) => {
        const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
        return total + (line ? Number(line.slice(series.length + 1)) : 0);
      }, 0),
  };
}

describe('conversion of Profiles between v1alpha1 (stored) and v1beta1 (the hub), by /convert', () => {
  const hub = 'v1beta1';
  const profiles = { group, namespace: NS, plural: 'profiles' };
  type Read = KubernetesObject & { spec?: any };
  const read = async (name: string, at: string) => (await objects.getNamespacedCustomObject({ ...profiles, version: at, name })) as Read;

  beforeAll(async () => {
    // cainjector puts the serving CA into the CRD's conversion webhook, as into the webhook configurations.
    const crds = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    await waitFor(
      'cainjector to inject the CA into the profiles CRD',
      async () => ((await crds.readCustomResourceDefinition({ name: 'profiles.shaper.io' })).spec.conversion?.webhook?.clientConfig?.caBundle ? true : undefined),
      120_000,
      500,
    );
  });

  it('serves a Profile created as v1alpha1 as v1beta1, and the same object back as v1alpha1', async () => {
    const created = (await objects.createNamespacedCustomObject({
      ...profiles,
      version,
      body: profile('converted', { tier: 'silver', resources: { cpu: '500m' }, description: 'batch' }),
    })) as Read;
    const asHub = await read('converted', hub);
    expect({ apiVersion: asHub.apiVersion, kind: asHub.kind, metadata: asHub.metadata, spec: asHub.spec }).toEqual({
      apiVersion: `${group}/${hub}`,
      kind: 'Profile',
      metadata: created.metadata,
      spec: { tier: 'silver', scheduling: { priority: 500 }, requests: { cpu: '500m' }, description: 'batch' },
    });
    expect(await read('converted', version)).toEqual(created);
  });

  it('takes a v1beta1 Profile through both webhooks (they see v1alpha1) and keeps what v1alpha1 cannot hold in an annotation', async () => {
    const body = {
      apiVersion: `${group}/${hub}`,
      kind: 'Profile',
      metadata: { name: 'spot', namespace: NS },
      spec: { tier: 'bronze', scheduling: { preemptible: true }, requests: { memory: '1Gi' } },
    };
    const created = (await objects.createNamespacedCustomObject({ ...profiles, version: hub, body })) as Read;
    // /mutate-profile defaulted the priority from the tier and set the tier label, on the v1alpha1 form.
    expect(created.spec).toEqual({ tier: 'bronze', scheduling: { priority: 100, preemptible: true }, requests: { memory: '1Gi' } });
    expect(created.metadata!.labels).toEqual({ 'shaper.io/tier': 'bronze' });
    expect(created.metadata!.annotations).toBeUndefined();
    const stored = await read('spot', version);
    expect(stored.spec).toEqual({ tier: 'bronze', priority: 100, resources: { memory: '1Gi' } });
    expect(stored.metadata!.annotations).toEqual({ 'shaper.io/v1beta1-scheduling': '{"preemptible":true}' });
  });

  it('applies an update made through v1beta1 to the stored v1alpha1 object, and /validate-profile still guards the tier', async () => {
    const patched = (await objects.patchNamespacedCustomObject(
      { ...profiles, version: hub, name: 'spot', body: { spec: { scheduling: { priority: 7 } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Read;
    expect(patched.spec.scheduling).toEqual({ priority: 7, preemptible: true });
    expect((await read('spot', version)).spec.priority).toBe(7);
    const status = await rejection(
      objects.patchNamespacedCustomObject({ ...profiles, version: hub, name: 'spot', body: { spec: { tier: 'gold' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)),
    );
    expect(status.code).toBe(422);
    expect(status.message).toContain('spec.tier: Invalid value: "gold": field is immutable (was "bronze")');
  });

  it('lists every Profile in the version asked for', async () => {
    for (const at of [version, hub]) {
      const list = (await objects.listNamespacedCustomObject({ ...profiles, version: at })) as { apiVersion: string; items: Read[] };
      expect(list.apiVersion).toBe(`${group}/${at}`);
      expect(list.items.length).toBeGreaterThanOrEqual(2);
      expect(new Set(list.items.map((item) => item.apiVersion))).toEqual(new Set([`${group}/${at}`]));
      const spot = list.items.find((item) => item.metadata!.name === 'spot')!;
      expect(at === hub ? spot.spec.scheduling.priority : spot.spec.priority).toBe(7);
    }
  });

  it("prints each version's columns with kubectl get", async () => {
    const kubectl = async (resource: string) =>
      (
        await run(tool('kubectl'), [
          '--kubeconfig',
          env.kubeconfigPath,
          'get',
          resource,
          'spot',
          '-n',
          NS,
          '--no-headers',
          '-o',
          'custom-columns=V:.apiVersion,P:.spec.priority,S:.spec.scheduling.priority',
        ])
      ).stdout
        .trim()
        .split(/\s+/);
    expect(await kubectl(`profiles.${version}.${group}`)).toEqual([`${group}/${version}`, '7', '<none>']);
    expect(await kubectl(`profiles.${hub}.${group}`)).toEqual([`${group}/${hub}`, '<none>', '7']);
    // Without a version kubectl reads the preferred one, the highest: v1beta1, with its printer columns.
    const table = (await run(tool('kubectl'), ['--kubeconfig', env.kubeconfigPath, 'get', 'profiles', 'spot', '-n', NS])).stdout.trim().split('\n');
    expect(table[0]!.split(/\s+/)).toEqual(['NAME', 'TIER', 'PRIORITY', 'PREEMPTIBLE', 'AGE']);
    expect(table[1]!.split(/\s+/).slice(0, 4)).toEqual(['spot', 'bronze', '7', 'true']);
  });

  it('counts the conversions in /metrics', async () => {
    const metrics = await allMetrics(8080);
    expect(metrics.sum('shaper_webhook_converted_objects_total{webhook="/convert",kind="shaper.io/Profile",from="v1alpha1",to="v1beta1"}')).toBeGreaterThan(0);
    expect(metrics.sum('shaper_webhook_converted_objects_total{webhook="/convert",kind="shaper.io/Profile",from="v1beta1",to="v1alpha1"}')).toBeGreaterThan(0);
    expect(metrics.sum('shaper_webhook_conversion_reviews_total{webhook="/convert",result="Failure"}')).toBe(0);
  });

  it('shows a client the Failure a converter returns: a served version with no spoke', async () => {
    const crds = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const crd = await crds.readCustomResourceDefinition({ name: 'profiles.shaper.io' });
    const v1alpha1 = crd.spec.versions.find((v) => v.name === version)!;
    crd.spec.versions.push({ name: 'v1', served: true, storage: false, schema: v1alpha1.schema, subresources: v1alpha1.subresources });
    await crds.replaceCustomResourceDefinition({ name: 'profiles.shaper.io', body: crd });
    try {
      const failure = await waitFor(
        'shaper.io/v1 Profiles to be served',
        () => rejection(objects.getNamespacedCustomObject({ ...profiles, version: 'v1', name: 'spot' })).then((status) => (status.code === 404 ? undefined : status)),
        60_000,
        250,
      );
      // The stored object cannot be decoded into v1: the API server reports it as a storage error carrying the webhook's message.
      const cause = String.raw`StorageError: corrupt object, Code: 7, Key: /shaper\.io/profiles/${NS}/spot, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=\d+: conversion webhook for shaper\.io/v1alpha1, Kind=Profile failed: dist/sample/webhooks\.generated\.js#ProfileConversion cannot convert Profile v1: it converts v1beta1, v1alpha1 \(hub v1beta1\); add spokes\.v1`;
      expect(failure).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 500,
        reason: 'InternalError',
        message: expect.stringMatching(new RegExp(`^Internal error occurred: ${cause}$`)),
        details: { causes: [{ message: expect.stringMatching(new RegExp(`^${cause}$`)) }] },
      });
      expect((await allMetrics(8080)).sum('shaper_webhook_conversion_reviews_total{webhook="/convert",result="Failure"}')).toBeGreaterThan(0);
    } finally {
      const current = await crds.readCustomResourceDefinition({ name: 'profiles.shaper.io' });
      current.spec.versions = current.spec.versions.filter((v) => v.name !== 'v1');
      await crds.replaceCustomResourceDefinition({ name: 'profiles.shaper.io', body: current });
    }
  });
});

describe('failure policy with the server gone', () => {
  it('Fail rejects with "failed calling webhook"; Ignore lets the request through', async () => {
    await addConfigMapWebhook({ name: 'ignore', admissionReviewVersions: ['v1'], failurePolicy: 'Ignore' });
    await env.stopServer();

    const failed = await rejection(objects.createNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', body: profile('after-outage') }));
    // With the Deployment scaled to zero the Service has no endpoints; the harness's stand-in pod leaves one that refuses.
    const cause = env.backend === 'node' ? `no endpoints available for service "${FULLNAME}"` : String.raw`dial tcp [0-9.]+:9443: connect: connection refused`;
    const refused = String.raw`failed calling webhook "mutate-profile.shaper.io": failed to call webhook: Post "https://${FULLNAME}.${RELEASE_NAMESPACE}.svc:443/mutate-profile\?timeout=5s": ${cause}`;
    expect(failed).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
      message: expect.stringMatching(new RegExp(`^Internal error occurred: ${refused}$`)),
      details: { causes: [{ message: expect.stringMatching(new RegExp(`^${refused}$`)) }] },
    });
    const ignored = await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'through-the-outage', labels: { 'kindenv.shaper-gen.io/ignore': 'true' } } },
    });
    expect(ignored.metadata!.uid).toBeTruthy();
  });
});

/**
 * A test-only ValidatingWebhookConfiguration: the chart's /validate-profile (with the CA cainjector
 * put in the chart's configuration) called for ConfigMaps labelled `kindenv.shaper-gen.io/<name>: "true"`.
 */
async function addConfigMapWebhook({ name, admissionReviewVersions, failurePolicy }: { name: string; admissionReviewVersions: string[]; failurePolicy: 'Fail' | 'Ignore' }) {
  const registration = env.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const caBundle = (await registration.readValidatingWebhookConfiguration({ name: FULLNAME })).webhooks![0]!.clientConfig.caBundle;
  await registration.createValidatingWebhookConfiguration({
    body: {
      metadata: { name: `kindenv-${name}` },
      webhooks: [
        {
          name: `${name}.kindenv.shaper.io`,
          admissionReviewVersions,
          clientConfig: { service: { name: FULLNAME, namespace: RELEASE_NAMESPACE, path: '/validate-profile', port: 443 }, caBundle },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'], scope: 'Namespaced' }],
          objectSelector: { matchLabels: { [`kindenv.shaper-gen.io/${name}`]: 'true' } },
          sideEffects: 'None',
          failurePolicy,
          timeoutSeconds: 5,
        },
      ],
    },
  });
}

function servedCertificate(host: string, port: number): Promise<tls.DetailedPeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, rejectUnauthorized: false, servername: `${FULLNAME}.${RELEASE_NAMESPACE}.svc` }, () => {
      resolve(socket.getPeerCertificate(true));
      socket.destroy();
    });
    socket.on('error', reject);
  });
}
