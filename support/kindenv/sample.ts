/** The sample's CRDs, a tenant namespace and the chart, installed the way the cluster scenarios start. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { REPO_ROOT } from '../repo-root.ts';
import { waitForInjectedCA } from './admission-status.ts';
import { FULLNAME, type InstallResult, type KindEnv } from './kindenv.ts';
import { waitFor } from './processes.ts';

export const SAMPLE_GROUP = 'shaper.io';
export const SAMPLE_VERSION = 'v1alpha1';

export async function installSample(env: KindEnv, namespace: string, values: Record<string, unknown> = {}): Promise<{ install: InstallResult; objects: CustomObjectsApi }> {
  const crds = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const file of ['shaper.io_profiles.yaml', 'shaper.io_assignments.yaml']) {
    // loadYaml maps the YAML's keys (x-kubernetes-int-or-string …) onto client-node's model.
    await crds.createCustomResourceDefinition({ body: loadYaml<V1CustomResourceDefinition>(readFileSync(path.join(REPO_ROOT, 'sample/config/crd', file), 'utf8')) });
  }
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  const objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
  // CRD discovery settles asynchronously: wait until Profiles can be listed (the server's cache lists them to become ready).
  await waitFor(
    'the shaper.io CRDs to serve',
    () => objects.listNamespacedCustomObject({ group: SAMPLE_GROUP, version: SAMPLE_VERSION, namespace, plural: 'profiles' }).then(() => true),
    60_000,
    250,
  );
  const install = await env.installChart(values);
  await waitForInjectedCA(env, FULLNAME);
  return { install, objects };
}
