/**
 * The `local` backend (SHAPER_KINDENV=local): the fast path for iterating on
 * the server. The same control plane and helm, but no node: the harness plays
 * the Deployment's pod, running `shaper-gen serve` from this checkout in a
 * network namespace (webhook-pod.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { REPO_ROOT } from '../repo-root.ts';
import { startControlPlane, type ControlPlane } from './control-plane.ts';
import { helmFullname, labelledNamespace, RELEASE, RELEASE_NAMESPACE, type KindEnv } from './kindenv.ts';
import { createNetworkNamespace } from './netns.ts';
import { tool } from './tools.ts';
import { startWebhookPod, type WebhookPod } from './webhook-pod.ts';

const run = promisify(execFile);

export async function createLocalBackend(log: (line: string) => void): Promise<KindEnv> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-kindenv-'));
  const netns = createNetworkNamespace();
  let controlPlane: ControlPlane | undefined;
  let pod: WebhookPod | undefined;
  const stop = async () => {
    await pod?.stop();
    await controlPlane?.stop();
    netns.remove();
    if (!process.env.SHAPER_KINDENV_KEEP) rmSync(dir, { recursive: true, force: true });
  };
  try {
    controlPlane = await startControlPlane({ dir, hostAddress: netns.hostAddress, log });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
    const helm = (args: string[]) => run(tool('helm'), [...args, '--kubeconfig', controlPlane!.kubeconfigPath], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
    const cp = controlPlane;
    const installed = () => {
      if (!pod) throw new Error('installChart() first');
      return pod;
    };
    return {
      backend: 'local',
      kubeConfig,
      kubeconfigPath: cp.kubeconfigPath,
      helm,
      async installChart(values = {}, options = {}) {
        const chartDir = options.chartDir ?? path.join(REPO_ROOT, 'charts/shaper-webhooks');
        const release = options.release ?? RELEASE;
        const namespace = options.namespace ?? RELEASE_NAMESPACE;
        await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: labelledNamespace(namespace) });
        const sets = Object.entries(values).flatMap(([key, value]) => ['--set-json', `${key}=${JSON.stringify(value)}`]);
        log(`helm install ${release} ${path.relative(REPO_ROOT, chartDir)} -n ${namespace}`);
        const { stderr } = await helm(['install', release, chartDir, '--namespace', namespace, ...sets]);
        pod = await startWebhookPod({
          kubeConfig,
          netns,
          apiServerUrlFromPod: cp.apiServerUrlFromPod,
          clusterCA: cp.ca.cert,
          namespace,
          fullname: helmFullname(release, chartDir),
          appDir: options.appDir ?? REPO_ROOT,
          dir: path.join(dir, 'pod'),
          log,
        });
        return { stderr };
      },
      readyz: () => installed().readyz(),
      pods: async () => [{ name: 'harness-pod', uid: 'harness-pod', address: installed().podAddress, ready: true }],
      syncServingSecret: () => installed().syncSecret(),
      stopServer: () => installed().stop(),
      restartApiServer: () => cp.restartApiServer(),
      logs(name, lines = 40) {
        const process = name === 'serve' ? pod?.process : cp.processes.find((p) => p.name === name);
        return process?.tail(lines) ?? '';
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
