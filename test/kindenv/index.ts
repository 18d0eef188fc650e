/**
 * kindEnv: a real cluster for the integration scenarios, behind one interface.
 *
 * - `local` (default; what CI runs): etcd, kube-apiserver and cert-manager on
 *   this machine, the chart installed by the pinned helm, and `shaper-gen serve`
 *   in a network namespace standing in for the Deployment's pod.
 * - `kind` (SHAPER_KINDENV=kind, needs Docker): see kind.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '../support/fixture-project.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { createNetworkNamespace } from './netns.js';
import { tool } from './tools.js';
import { startWebhookPod, type WebhookPod } from './webhook-pod.js';

const run = promisify(execFile);

export const RELEASE = 'shaper';
export const RELEASE_NAMESPACE = 'shaper-system';
export const FULLNAME = 'shaper-shaper-webhooks';

export interface InstallResult {
  /** What helm printed on stderr: the API server's warnings (e.g. Pod Security) would be here. */
  stderr: string;
}

export interface InstallOptions {
  /** The chart to install (default charts/shaper-webhooks of this checkout). */
  chartDir?: string;
  release?: string;
  namespace?: string;
  /** The image's WORKDIR: where `shaper-gen serve` runs and finds the handlers (default this checkout). */
  appDir?: string;
}

export interface KindEnv {
  readonly backend: 'local' | 'kind';
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  /** Runs the pinned helm against this cluster. */
  helm(args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Installs a chart (the sample's by default) into a namespace labelled Pod Security restricted, and starts the webhook server for it. */
  installChart(values?: Record<string, unknown>, options?: InstallOptions): Promise<InstallResult>;
  /** Where the webhook server's health endpoint answers. */
  readyz(): Promise<{ status: number; text: string }>;
  /** The address the server's pod has (its container ports are reachable there from the test). */
  podAddress(): string;
  /** The kubelet's part after the serving-cert Secret changed: project it into the pod's files. */
  syncServingSecret(): Promise<void>;
  /** Takes the webhook server away (the pod is gone), for failure-policy scenarios. */
  stopServer(): Promise<void>;
  /** Restarts kube-apiserver (same port, same etcd): every watch breaks and clients must resume. */
  restartApiServer(): Promise<void>;
  /** A piece of the environment's logs, for failure messages. */
  logs(name: 'kube-apiserver' | 'cert-manager' | 'serve', lines?: number): string;
  stop(): Promise<void>;
}

/** The `<chart>.fullname` helper's rule: the release name if it contains the chart name, else `<release>-<chart>`. */
function helmFullname(release: string, chartDir: string): string {
  const chart = (parseYaml(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as { name: string }).name;
  return (release.includes(chart) ? release : `${release}-${chart}`).slice(0, 63).replace(/-+$/, '');
}

export async function createKindEnv(log: (line: string) => void = (line) => process.stderr.write(`kindenv: ${line}\n`)): Promise<KindEnv> {
  const backend = process.env.SHAPER_KINDENV ?? 'local';
  if (backend === 'kind') return (await import('./kind.js')).createKindBackend(log);
  if (backend !== 'local') throw new Error(`SHAPER_KINDENV=${backend}: expected local or kind`);
  return createLocalBackend(log);
}

async function createLocalBackend(log: (line: string) => void): Promise<KindEnv> {
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
        await kubeConfig.makeApiClient(CoreV1Api).createNamespace({
          body: { metadata: { name: namespace, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } } },
        });
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
      podAddress: () => installed().podAddress,
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
