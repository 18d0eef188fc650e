/** The sample's CRDs, a tenant namespace and the chart, installed the way the cluster scenarios start. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, loadYaml, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../repo-root.ts';
import { waitForInjectedCA } from './admission-status.ts';
import { FULLNAME, RELEASE, RELEASE_NAMESPACE, type InstallResult, type KindEnv } from './kindenv.ts';
import { waitFor } from './processes.ts';
import { tool } from './tools.ts';

export const SAMPLE_GROUP = 'shaper.io';
export const SAMPLE_VERSION = 'v1alpha1';

const run = promisify(execFile);

/**
 * The CRDs the sample's chart renders: `shaper-gen manifests` generates them
 * from the kinds in sample/api/ into charts/shaper-webhooks/templates/crds/.
 * Rendered for the release installChart makes, so that Profile's conversion
 * webhook names its Service and cainjector finds its Certificate.
 * loadYaml maps the YAML's keys (x-kubernetes-int-or-string …) onto client-node's model.
 */
export async function sampleCrds(chartDir = path.join(REPO_ROOT, 'charts/shaper-webhooks')): Promise<V1CustomResourceDefinition[]> {
  const { stdout } = await run(tool('helm'), ['template', RELEASE, chartDir, '--namespace', RELEASE_NAMESPACE], { maxBuffer: 64 * 1024 * 1024 });
  // Templates that render nothing leave empty documents, which loadAllYaml cannot take: one document at a time.
  return parseAllDocuments(stdout)
    .filter((document) => (document.toJS() as { kind?: string } | null)?.kind === 'CustomResourceDefinition')
    .map((document) => loadYaml<V1CustomResourceDefinition>(document.toString()));
}

/** Creates the sample's CRDs (as rendered by its chart) and waits until Profiles can be listed in `namespace`. */
export async function createSampleCrds(kubeConfig: KubeConfig, namespace: string): Promise<V1CustomResourceDefinition[]> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const created: V1CustomResourceDefinition[] = [];
  for (const body of await sampleCrds()) created.push(await api.createCustomResourceDefinition({ body }));
  const objects = kubeConfig.makeApiClient(CustomObjectsApi);
  // CRD discovery settles asynchronously: wait until Profiles can be listed (the server's cache lists them to become ready).
  await waitFor(
    'the shaper.io CRDs to serve',
    () => objects.listNamespacedCustomObject({ group: SAMPLE_GROUP, version: SAMPLE_VERSION, namespace, plural: 'profiles' }).then(() => true),
    60_000,
    250,
  );
  return created;
}

export async function installSample(env: KindEnv, namespace: string, values: Record<string, unknown> = {}): Promise<{ install: InstallResult; objects: CustomObjectsApi }> {
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  // Created before the chart, so that they serve before the server's cache lists Profiles; the chart then leaves them alone.
  await createSampleCrds(env.kubeConfig, namespace);
  const objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const install = await env.installChart({ 'crds.install': false, ...values });
  await waitForInjectedCA(env, FULLNAME);
  return { install, objects };
}
