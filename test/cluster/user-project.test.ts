/**
 * A user's project, not the sample: the packages packed, `shaper-gen init` in a
 * fresh npm project (which vendors them), built; its image built from its own
 * Dockerfile with the project directory as the whole context, its own chart
 * installed by helm, and the real API server calling its example webhooks
 * through the chart's Service and evaluating its example policy.
 */
import path from 'node:path';
import { AppsV1Api, CoreV1Api, type V1ConfigMap, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPolicy } from 'shaper-gen/testing';
import { ConfigMapTeamPolicy } from '../../generator/scaffold/project/src/policies/configmap-team-policy.js';
import { deniedBy, rejection, waitForInjectedCA } from '../../support/kindenv/admission-status.js';
import { createKindEnv, type KindEnv } from '../../support/kindenv/index.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { createUserProject, type UserProject } from '../support/user-project.js';

const NAME = 'team-guard';
const RELEASE = 'guard';
const NS = 'apps';
let env: KindEnv;
let user: UserProject;

const configMap = (name: string, labels: Record<string, string>, annotations?: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels, ...(annotations && { annotations }) },
  data: { mode: 'fast' },
});
const deployment = (name: string, labels: Record<string, string>): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS, labels },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
  },
});

beforeAll(async () => {
  user = await createUserProject(NAME);
  await user.sh('npm', ['run', 'build']);
  env = await createKindEnv();
  try {
    await env.installChart({}, { chartDir: path.join(user.dir, 'charts', NAME), release: RELEASE, namespace: `${NAME}-system`, appDir: user.dir });
    await waitForInjectedCA(env, `${RELEASE}-${NAME}`);
    await env.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  } catch (error) {
    process.stderr.write(`--- kube-apiserver ---\n${env.logs('kube-apiserver')}\n--- serve ---\n${env.logs('serve')}\n`);
    throw error;
  }
}, 600_000);
afterAll(async () => {
  await (env as KindEnv | undefined)?.stop();
  (user as UserProject | undefined)?.remove();
});

describe("a scaffolded project's chart in a real cluster", () => {
  it('denies an opted-in ConfigMap without an owner, with the field cause the handler gave', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const status = await rejection(core.createNamespacedConfigMap({ namespace: NS, body: configMap('unowned', { 'webhooks.example.com/validate': 'true' }) }));
    expect(status).toEqual(
      deniedBy('validate-configmap.shaper-gen.io', {
        code: 422,
        reason: 'Invalid',
        message: 'ConfigMap "unowned" is invalid: metadata.annotations[example.com/owner]: Required value: name the team that owns this ConfigMap',
        details: {
          name: 'unowned',
          kind: 'ConfigMap',
          causes: [{ reason: 'FieldValueRequired', message: 'Required value: name the team that owns this ConfigMap', field: 'metadata.annotations[example.com/owner]' }],
        },
      }),
    );
  });

  it('admits an owned ConfigMap, and leaves ConfigMaps that did not opt in alone', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const owned = await core.createNamespacedConfigMap({ namespace: NS, body: configMap('owned', { 'webhooks.example.com/validate': 'true' }, { 'example.com/owner': 'team-a' }) });
    expect(owned.metadata?.annotations).toEqual({ 'example.com/owner': 'team-a' });
    const other = await core.createNamespacedConfigMap({ namespace: NS, body: configMap('other', {}) });
    expect(other.metadata?.name).toBe('other');
  });

  it("defaults an opted-in Deployment through the mutating webhook, after the API server's own defaults; others are left alone", async () => {
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    const defaulted = await apps.createNamespacedDeployment({ namespace: NS, body: deployment('web', { 'webhooks.example.com/defaults': 'true' }) });
    expect(defaulted.spec?.template.spec?.containers[0]?.resources).toEqual({ requests: { cpu: '50m', memory: '64Mi' } });
    expect(defaulted.spec?.revisionHistoryLimit).toBe(10);
    const plain = await apps.createNamespacedDeployment({ namespace: NS, body: deployment('plain', {}) });
    expect(plain.spec?.template.spec?.containers[0]?.resources).toEqual({});
  });

  it('denies an opted-in ConfigMap without a team label through the scaffolded policy, with the Status runPolicy predicted; admits one with it', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const untagged = configMap('untagged', { 'policies.example.com/validate': 'true' });
    // The API server loads a new policy and binding from its informers: wait until it enforces them.
    await waitFor(
      'the policy to be enforced',
      async () => ((await rejection(core.createNamespacedConfigMap({ namespace: NS, body: untagged, dryRun: 'All' })).catch(() => undefined))?.code === 422 ? true : undefined),
      60_000,
      500,
    );
    const predicted = await runPolicy(ConfigMapTeamPolicy, { object: untagged });
    const status = await rejection(core.createNamespacedConfigMap({ namespace: NS, body: untagged }));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: predicted.code,
      reason: predicted.reason,
      message: predicted.message,
      // runPolicy's decision has no causes; the API server repeats its message without the "… is forbidden: " prefix as one.
      details: { name: 'untagged', kind: 'configmaps', causes: [{ message: predicted.message?.replace('configmaps "untagged" is forbidden: ', '') }] },
    });
    const tagged = await core.createNamespacedConfigMap({ namespace: NS, body: configMap('tagged', { 'policies.example.com/validate': 'true', 'example.com/team': 'team-a' }) });
    expect(tagged.metadata?.labels).toEqual({ 'policies.example.com/validate': 'true', 'example.com/team': 'team-a' });
  });
});
