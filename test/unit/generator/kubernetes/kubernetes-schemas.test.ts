/**
 * The Kubernetes schemas the generator ships are those of the pinned
 * Kubernetes release, extracted now as they were when committed, and name
 * the models as @kubernetes/client-node names them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extract, pinnedKubernetesVersion, schemasFile, specDirectory } from '../../../../scripts/kubernetes-schemas/extract.ts';
import { KUBERNETES_MINOR, kubernetesVersion } from '../../../../generator/src/kubernetes/api-schemas.js';
import { REPO_ROOT } from '../../../support/fixture-project.js';

const version = pinnedKubernetesVersion();
const file = schemasFile(version);
const shipped = JSON.parse(readFileSync(file, 'utf8')) as { clientNodeModels: Record<string, string>; resources: Record<string, string> };

describe('the shipped Kubernetes schemas', () => {
  it('are of the pinned release, the minor the generator targets', () => {
    expect(kubernetesVersion()).toBe(version);
    expect(path.basename(file)).toBe(`v${KUBERNETES_MINOR}.json`);
  });

  it('are what the extraction writes from k8s.io/kubernetes at that release (npm run kubernetes-schemas)', () => {
    expect(extract(specDirectory(version), version) === readFileSync(file, 'utf8')).toBe(true);
  });

  it('name each model as the installed @kubernetes/client-node does, where it has the model', () => {
    const models = new Set(
      readdirSync(path.join(REPO_ROOT, 'node_modules/@kubernetes/client-node/dist/gen/models'))
        .filter((name) => name.endsWith('.d.ts'))
        .map((name) => name.slice(0, -'.d.ts'.length)),
    );
    const ours = Object.keys(shipped.clientNodeModels);
    const common = ours.filter((name) => models.has(name));
    // Newer kinds than the client's, and the primitives it inlines (IntstrIntOrString, V1Time…), are ours alone.
    expect(common.length).toBeGreaterThan(500);
    for (const name of [
      'V1PodSpec',
      'V1PodTemplateSpec',
      'V1JobTemplateSpec',
      'V1ObjectReference',
      'V1Condition',
      'CoreV1Event',
      'EventsV1Event',
      'RbacV1Subject',
      'AdmissionregistrationV1ServiceReference',
    ]) {
      expect([name, models.has(name), ours.includes(name)]).toEqual([name, true, true]);
    }
  });

  it('map the resources of the built-in kinds to their definitions', () => {
    expect(Object.fromEntries(['/v1/configmaps', '/v1/pods', 'apps/v1/deployments', 'batch/v1/cronjobs', 'networking.k8s.io/v1/ingresses'].map((key) => [key, shipped.resources[key]]))).toEqual({
      '/v1/configmaps': 'io.k8s.api.core.v1.ConfigMap',
      '/v1/pods': 'io.k8s.api.core.v1.Pod',
      'apps/v1/deployments': 'io.k8s.api.apps.v1.Deployment',
      'batch/v1/cronjobs': 'io.k8s.api.batch.v1.CronJob',
      'networking.k8s.io/v1/ingresses': 'io.k8s.api.networking.v1.Ingress',
    });
  });
});
