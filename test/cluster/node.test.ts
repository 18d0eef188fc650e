/**
 * What only a real node shows: the chart's Deployment run by a kubelet from
 * the image built from the Dockerfile, under continuous admission traffic
 * (Profiles created and updated through both webhooks, failurePolicy Fail):
 * rolling restart, a deleted pod, a drain held by the PodDisruptionBudget,
 * readiness gating, and the securityContext the runtime enforces. The
 * sample's policies are enforced by the server here (policies.enforcement
 * serve), so the traffic also goes through the two ValidatingAdmissionPolicies
 * on Profiles as webhook entries, evaluated by the CEL engine in the image.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, DiscoveryV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKindEnv, FULLNAME, RELEASE, RELEASE_NAMESPACE, type KindEnv, type KindEnvPod } from '../../support/kindenv/index.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { installSample, SAMPLE_GROUP as group, SAMPLE_VERSION as version } from '../../support/kindenv/sample.js';
import { admissionTraffic } from '../support/admission-traffic.js';
import { REPO_ROOT } from '../support/fixture-project.js';
import { httpText } from '../../support/http-text.js';

const run = promisify(execFile);
const NS = 'team-n';
const onNode = (process.env.SHAPER_KINDENV ?? 'node') === 'node';
let env: KindEnv;
let objects: CustomObjectsApi;

beforeAll(async () => {
  if (!onNode) return;
  env = await createKindEnv();
  try {
    ({ objects } = await installSample(env, NS, { 'policies.enforcement': 'serve' }));
  } catch (error) {
    process.stderr.write(`--- kubelet ---\n${env.logs('kubelet', 60)}\n--- serve ---\n${env.logs('serve', 60)}\n`);
    await env.stop();
    throw error;
  }
});
afterAll(() => (env as KindEnv | undefined)?.stop());

const apps = () => env.kubeConfig.makeApiClient(AppsV1Api);
const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
/** Profiles created and updated as `at`: as v1beta1 (the hub), every call is also converted by /convert, to v1alpha1 and back. */
const traffic = (name: string, at = version) => {
  const load = admissionTraffic(objects, { group, version: at, namespace: NS, plural: 'profiles', prefix: name, maxCalls: 4000, maxSeconds: 240 });
  return {
    warmUp: () => load.warmUp(),
    async stop() {
      const result = await load.stop();
      process.stderr.write(`${name}: ${result.calls} admission calls during the disruption, ${result.failures.length} failed\n`);
      return result;
    },
  };
};

/** Waits until the Deployment has rolled out completely: every replica updated and available, no old pod left. */
async function rolledOut(minimumNewPods = new Set<string>()): Promise<KindEnvPod[]> {
  return waitFor(
    'the Deployment to roll out',
    async () => {
      const { metadata, spec, status } = await apps().readNamespacedDeployment({ name: FULLNAME, namespace: RELEASE_NAMESPACE });
      const done =
        status?.observedGeneration === metadata?.generation && status?.updatedReplicas === spec?.replicas && status?.availableReplicas === spec?.replicas && status?.replicas === spec?.replicas;
      if (!done) return undefined;
      const pods = await env.pods();
      return pods.length === spec?.replicas && pods.every((pod) => pod.ready && !minimumNewPods.has(pod.uid)) ? pods : undefined;
    },
    240_000,
    500,
  );
}

describe.runIf(onNode)('the chart on a real node', () => {
  it('runs 2 replicas of the image built from the Dockerfile, ready, on the node', async () => {
    const pods = await env.pods();
    expect(pods.map((pod) => pod.ready)).toEqual([true, true]);
    const list = await core().listNamespacedPod({ namespace: RELEASE_NAMESPACE, labelSelector: `app.kubernetes.io/instance=${RELEASE}` });
    for (const pod of list.items) {
      expect(pod.spec!.nodeName).toMatch(/^kindenv-\d+$/);
      expect(pod.spec!.containers[0]!.image).toMatch(/^localhost\/shaper-webhooks:[0-9a-f]{12}$/);
      expect(pod.status!.containerStatuses![0]!.restartCount).toBe(0);
    }
    // The EndpointSlice controller, not the harness, published both pods (it follows the pods' Ready condition shortly after).
    const expected = pods.map((pod) => pod.address).sort();
    const ready = await waitFor(
      'the EndpointSlice to list both pods as ready',
      async () => {
        const addresses = (await endpoints())
          .filter((e) => e.conditions?.ready)
          .flatMap((e) => e.addresses)
          .sort();
        return addresses.join() === expected.join() ? addresses : undefined;
      },
      30_000,
      250,
    ).catch(async () =>
      (await endpoints())
        .filter((e) => e.conditions?.ready)
        .flatMap((e) => e.addresses)
        .sort(),
    );
    expect(ready).toEqual(expected);
  });

  it("enforces the sample's policies with the CEL engine the image carries: a refusal worded by the policy, a label set by a MutatingAdmissionPolicy", async () => {
    const profile = (name: string, spec: object) => ({ apiVersion: `${group}/${version}`, kind: 'Profile', metadata: { name, namespace: NS }, spec });
    const refusal = await objects
      .createNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', body: profile('gold-low', { tier: 'gold', priority: 100, description: 'too low' }) })
      .then(
        () => 'created',
        (error: { body?: string }) => (JSON.parse(error.body ?? '{}') as { message?: string }).message,
      );
    expect(refusal).toBe(
      'admission webhook "profile-tier-policy.shaper.io" denied the request: profiles.shaper.io "gold-low" is forbidden: ' +
        "ValidatingAdmissionPolicy 'profile-tier-policy.shaper.io' with binding 'profile-tier-policy.shaper.io' denied request: a gold Profile needs priority 500 or more, got 100",
    );
    // The AssignmentValidator webhook reads the Profile an Assignment names.
    await objects.createNamespacedCustomObject({ group, version, namespace: NS, plural: 'profiles', body: profile('gold', { tier: 'gold', priority: 900, description: 'for the label' }) });
    const assignment = await waitFor(
      'the Profile in the server cache',
      () =>
        objects
          .createNamespacedCustomObject({
            group,
            version,
            namespace: NS,
            plural: 'assignments',
            body: {
              apiVersion: `${group}/${version}`,
              kind: 'Assignment',
              metadata: { name: 'labelled', namespace: NS },
              spec: { profileRef: { name: 'gold' }, selector: { matchLabels: { app: 'web' } }, weight: 10 },
            },
            dryRun: 'All',
          })
          .then((created) => created as { metadata: { labels?: Record<string, string> } }),
      30_000,
    );
    expect(assignment.metadata.labels).toEqual({ 'shaper.io/profile': 'gold' });
    expect(env.logs('serve', 100_000)).toMatch(/"msg":"CEL engine loaded for the served policies"/);
  });

  it('runs the server as 65532 on a read-only root filesystem, and it still serves and logs', async () => {
    for (const pod of await env.pods()) {
      const pid = serverProcessOf(pod.uid);
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^Uid:\s+(.*)$/m.exec(status)![1]!.split(/\s+/)).toEqual(['65532', '65532', '65532', '65532']);
      expect(/^Gid:\s+(.*)$/m.exec(status)![1]!.split(/\s+/)).toEqual(['65532', '65532', '65532', '65532']);
      expect(/^CapEff:\s+(.*)$/m.exec(status)![1]).toBe('0000000000000000');
      expect(/^NoNewPrivs:\s+(.*)$/m.exec(status)![1]).toBe('1');
      // Writing into the image fails; /tmp (the chart's emptyDir) is writable. The image has Node and no shell.
      const inContainer = (command: string, ...args: string[]) => run('nsenter', ['--target', String(pid), '--mount', '--setuid', '65532', '--setgid', '65532', command, ...args]);
      const write = async (file: string) =>
        (
          await inContainer('/usr/local/bin/node', '-e', "try { require('node:fs').writeFileSync(process.argv[1], 'x'); console.log('written') } catch (e) { console.log(e.code) }", file)
        ).stdout.trim();
      expect(await write('/app/probe')).toBe('EROFS');
      expect(await write('/tmp/probe')).toBe('written');
      expect(
        await inContainer('sh', '-c', 'true').then(
          () => 'a shell',
          (error: { stderr?: string }) => error.stderr?.trim(),
        ),
      ).toBe('nsenter: failed to execute sh: No such file or directory');
      expect((await env.readyz()).status).toBe(200);
    }
    // The sample's 4 handler classes, and its 4 policies as webhooks (policies.enforcement serve).
    expect(env.logs('serve', 100_000)).toMatch(/"msg":"serving 8 webhooks and conversions at \/convert"/);
  });

  it('rolls a restart of the Deployment under continuous admission and conversion traffic with no failed call', async () => {
    const before = new Set((await env.pods()).map((pod) => pod.uid));
    const load = traffic('rollout');
    const converting = traffic('rollout-hub', 'v1beta1');
    await Promise.all([load.warmUp(), converting.warmUp()]);
    await apps().patchNamespacedDeployment(
      { name: FULLNAME, namespace: RELEASE_NAMESPACE, body: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    const after = await rolledOut(before);
    const [result, converted] = await Promise.all([load.stop(), converting.stop()]);
    expect(after.every((pod) => !before.has(pod.uid))).toBe(true);
    expect(result.failures).toEqual([]);
    expect(result.calls).toBeGreaterThan(20);
    expect(converted.failures).toEqual([]);
    expect(converted.calls).toBeGreaterThan(20);
  });

  it('loses no call when one pod is deleted under the same traffic', async () => {
    const [victim] = await env.pods();
    const load = traffic('delete');
    await load.warmUp();
    await core().deleteNamespacedPod({ name: victim!.name, namespace: RELEASE_NAMESPACE });
    await rolledOut(new Set([victim!.uid]));
    const result = await load.stop();
    expect(result.failures).toEqual([]);
    expect(result.calls).toBeGreaterThan(20);
  });

  it('drains the node: the PodDisruptionBudget keeps one replica serving, and no call fails', async () => {
    const node = (await core().listNode()).items[0]!.metadata!.name!;
    const load = traffic('drain');
    await load.warmUp();
    await core().patchNode({ name: node, body: { spec: { unschedulable: true } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    const pods = await env.pods();
    const evict = (pod: KindEnvPod) =>
      core()
        .createNamespacedPodEviction({
          name: pod.name,
          namespace: RELEASE_NAMESPACE,
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod.name, namespace: RELEASE_NAMESPACE } },
        })
        .then(
          () => 201,
          (error: { code?: number }) => error.code,
        );
    expect(await evict(pods[0]!)).toBe(201);
    // The evicted pod's replacement cannot be scheduled on the cordoned node: the budget refuses the second eviction.
    await waitFor('the first pod to be gone', async () => ((await env.pods()).some((pod) => pod.uid === pods[0]!.uid) ? undefined : true), 90_000, 500);
    expect(await evict(pods[1]!)).toBe(429);
    const serving = await env.pods();
    expect(serving.map((pod) => [pod.uid, pod.ready])).toEqual([[pods[1]!.uid, true]]);
    await core().patchNode({ name: node, body: { spec: { unschedulable: false } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    await rolledOut(new Set([pods[0]!.uid]));
    const result = await load.stop();
    expect(result.failures).toEqual([]);
    expect(result.calls).toBeGreaterThan(20);
  });

  it('keeps a pod whose config names a path its image does not serve unready, out of the endpoints, and no call fails', async () => {
    const image = await env.buildImage!(await contextWithout('ProfileValidator'));
    const original = await currentImage();
    const serving = new Set((await env.pods()).map((pod) => pod.uid));
    const load = traffic('gating');
    await load.warmUp();
    await apps().patchNamespacedDeployment(
      { name: FULLNAME, namespace: RELEASE_NAMESPACE, body: { spec: { template: { spec: { containers: [{ name: 'server', image: `${image.repository}:${image.tag}` }] } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    const gated = await waitFor(
      'the new pod to run, unready',
      async () => {
        const fresh = (await env.pods()).filter((pod) => !serving.has(pod.uid));
        if (fresh.length !== 1) return undefined;
        const readyz = await httpText(fresh[0]!.address, 8081, '/readyz?verbose').catch(() => undefined);
        return readyz?.text.includes('[-]handlers') ? { pod: fresh[0]!, readyz } : undefined;
      },
      120_000,
      500,
    );
    expect(gated.readyz.status).toBe(503);
    expect(gated.readyz.text).toContain('[-]handlers failed: no handler registered for /validate-profile\n');
    const endpoint = await waitFor('the EndpointSlice to list the new pod', async () => (await endpoints()).find((e) => e.addresses.includes(gated.pod.address)), 30_000, 250).catch(
      () => undefined,
    );
    expect(endpoint?.conditions?.ready).toBe(false);
    expect((await env.pods()).filter((pod) => serving.has(pod.uid)).map((pod) => pod.ready)).toEqual([true, true]);
    await apps().patchNamespacedDeployment(
      { name: FULLNAME, namespace: RELEASE_NAMESPACE, body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: original }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await rolledOut(new Set([gated.pod.uid]));
    const result = await load.stop();
    expect(result.failures).toEqual([]);
  });
});

/** The endpoints the EndpointSlice controller published for the chart's Service. */
async function endpoints() {
  const slices = await env.kubeConfig.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({ namespace: RELEASE_NAMESPACE, labelSelector: `kubernetes.io/service-name=${FULLNAME}` });
  return slices.items.flatMap((slice) => slice.endpoints ?? []);
}

async function currentImage(): Promise<string> {
  return (await apps().readNamespacedDeployment({ name: FULLNAME, namespace: RELEASE_NAMESPACE })).spec!.template.spec!.containers[0]!.image!;
}

/** The pid (on this host) of the server container of a pod: the node process in the pod's cgroup. */
function serverProcessOf(podUid: string): number {
  const marker = `pod${podUid}`;
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes('shaper-gen.js\0serve')) continue;
      if (readFileSync(`/proc/${entry}/cgroup`, 'utf8').includes(marker)) return Number(entry);
    } catch {
      /* exited meanwhile */
    }
  }
  throw new Error(`no shaper-gen serve process in the cgroup of pod ${podUid}`);
}

/** This checkout's build context with one webhook left out of the handlers module: an image older than the chart. */
async function contextWithout(className: string): Promise<string> {
  const { stdout } = await run('mktemp', ['-d']);
  const dir = `${stdout.trim()}/shaper-webhooks-older`;
  // The tracked files, and the CEL engine the build put into generator/dist/ (the Dockerfile copies it in).
  await run(
    'bash',
    [
      '-c',
      `mkdir -p "${dir}" && git ls-files -z | xargs -0 cp --parents -t "${dir}" && cp -r --parents generator/dist/cel-engine "${dir}" && sed -i '/^  ${className},$/d' "${dir}/sample/webhooks.generated.ts"`,
    ],
    { cwd: REPO_ROOT },
  );
  return dir;
}
