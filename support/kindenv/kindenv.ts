/** What every kindEnv backend offers the cluster scenarios. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';

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

export interface KindEnvPod {
  name: string;
  uid: string;
  address: string;
  ready: boolean;
}

export interface KindEnv {
  readonly backend: 'node' | 'local' | 'kind';
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  /** Runs the pinned helm against this cluster. */
  helm(args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Installs a chart (the sample's by default) into a namespace labelled Pod Security restricted, and starts the webhook server for it. */
  installChart(values?: Record<string, unknown>, options?: InstallOptions): Promise<InstallResult>;
  /** Builds the image from a project's Dockerfile (this checkout by default) and loads it into the node (node backend only). */
  buildImage?(contextDir?: string): Promise<{ repository: string; tag: string; name: string; size: string; buildSeconds: number }>;
  /** The release's server pods that have an address and are not terminating (the local backend's one stand-in process). */
  pods(): Promise<KindEnvPod[]>;
  /** Where the webhook server's health endpoint answers. */
  readyz(): Promise<{ status: number; text: string }>;
  /** The kubelet's part after the serving-cert Secret changed: project it into the pod's files (the node backend's kubelet does it itself). */
  syncServingSecret(): Promise<void>;
  /** Takes the webhook server away (the pod is gone), for failure-policy scenarios. */
  stopServer(): Promise<void>;
  /** Restarts kube-apiserver (same port, same etcd): every watch breaks and clients must resume. */
  restartApiServer(): Promise<void>;
  /** A piece of the environment's logs, for failure messages. */
  logs(name: 'kube-apiserver' | 'cert-manager' | 'serve' | 'kubelet' | 'containerd' | 'kube-controller-manager' | 'kube-scheduler' | 'kube-proxy', lines?: number): string;
  stop(): Promise<void>;
}

/** The `<chart>.fullname` helper's rule: the release name if it contains the chart name, else `<release>-<chart>`. */
export function helmFullname(release: string, chartDir: string): string {
  const chart = (parseYaml(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as { name: string }).name;
  return (release.includes(chart) ? release : `${release}-${chart}`).slice(0, 63).replace(/-+$/, '');
}

/** A namespace the chart is installed into: Pod Security "restricted", enforced and warned. */
export function labelledNamespace(name: string) {
  return { metadata: { name, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } } };
}
