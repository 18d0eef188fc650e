/**
 * Runs `shaper-gen serve` as the chart's Deployment would, without a kubelet:
 * in the network namespace, with the serving certificate from the Secret
 * cert-manager issued, the server config from the chart's ConfigMap, and a
 * token of the chart's ServiceAccount (so RBAC is the chart's). Then publishes
 * an EndpointSlice for the chart's Service pointing at it.
 */
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppsV1Api, CoreV1Api, DiscoveryV1Api, type KubeConfig } from '@kubernetes/client-node';
import { REPO_ROOT } from '../repo-root.ts';
import { httpText } from '../http-text.ts';
import { writeKubeconfig } from './control-plane.ts';
import type { NetworkNamespace } from './netns.ts';
import { GiveUp, startProcess, waitFor, type ManagedProcess } from './processes.ts';

export interface WebhookPodOptions {
  kubeConfig: KubeConfig;
  netns: NetworkNamespace;
  apiServerUrlFromPod: string;
  clusterCA: string;
  namespace: string;
  /** The chart's full name: Service, Secret `<name>-serving-cert`, ConfigMap `<name>-config`, ServiceAccount. */
  fullname: string;
  /** The image's WORKDIR: `serve` runs here, with this project's installed shaper-gen if it has one. */
  appDir: string;
  dir: string;
  log: (line: string) => void;
}

export interface WebhookPod {
  readonly process: ManagedProcess;
  readonly podAddress: string;
  readyz(): Promise<{ status: number; text: string }>;
  /** What the kubelet does when a mounted Secret changes: project the new data with an atomic swap. */
  syncSecret(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWebhookPod(options: WebhookPodOptions): Promise<WebhookPod> {
  const { kubeConfig, netns, namespace, fullname, dir, log } = options;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const certDir = path.join(dir, 'serving-certs');
  mkdirSync(certDir, { recursive: true });

  log(`waiting for cert-manager to issue Secret ${namespace}/${fullname}-serving-cert`);
  const readSecret = () =>
    waitFor(
      'the serving-cert Secret',
      async () => {
        const found = await core.readNamespacedSecret({ name: `${fullname}-serving-cert`, namespace }).catch(() => undefined);
        return found?.data?.['tls.crt'] && found.data['tls.key'] ? found.data : undefined;
      },
      120_000,
      500,
    );
  const projection = new SecretProjection(certDir);
  projection.project(await readSecret());

  const configMap = await core.readNamespacedConfigMap({ name: `${fullname}-config`, namespace });
  // The container's environment as the Deployment declares it (NODE_OPTIONS …).
  const deployment = await kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: fullname, namespace });
  const containerEnv = Object.fromEntries((deployment.spec!.template.spec!.containers[0]!.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, configMap.data!['config.yaml']!);

  // What the kubelet would mount as the projected ServiceAccount token.
  const token = await core.createNamespacedServiceAccountToken({
    name: fullname,
    namespace,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 3600 } },
  });
  if (!token.status?.token) throw new Error(`TokenRequest for ServiceAccount ${namespace}/${fullname} returned no token`);
  const podKubeconfig = path.join(dir, 'pod-kubeconfig');
  writeKubeconfig(podKubeconfig, options.apiServerUrlFromPod, options.clusterCA, { token: token.status.token });

  log(`starting shaper-gen serve in network namespace ${netns.name} at ${netns.podAddress}`);
  const [prefixCommand, ...prefixArgs] = netns.execPrefix as [string, ...string[]];
  const installed = path.join(options.appDir, 'node_modules/shaper-gen/dist/bin/shaper-gen.js');
  const cli = existsSync(installed) ? installed : path.join(REPO_ROOT, 'dist/bin/shaper-gen.js');
  const serve = startProcess('shaper-gen serve', prefixCommand, [...prefixArgs, process.execPath, cli, 'serve', '--config', configFile, '--cert-dir', certDir], path.join(dir, 'serve.log'), {
    cwd: options.appDir,
    env: { ...process.env, NODE_OPTIONS: '', ...containerEnv, KUBECONFIG: podKubeconfig },
  });

  const healthPort = 8081;
  const readyz = () => httpText(netns.podAddress, healthPort, '/readyz?verbose', 3000);
  await waitFor(
    'shaper-gen serve to become ready',
    async () => {
      if (serve.child.exitCode !== null) throw new GiveUp(`shaper-gen serve exited:\n${serve.tail()}`);
      return (await readyz()).status === 200 ? true : undefined;
    },
    30_000,
    250,
  );

  log(`publishing EndpointSlice ${namespace}/${fullname}-kindenv → ${netns.podAddress}:9443`);
  await kubeConfig.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
    namespace,
    body: {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${fullname}-kindenv`, labels: { 'kubernetes.io/service-name': fullname, 'endpointslice.kubernetes.io/managed-by': 'kindenv.shaper.io' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [netns.podAddress], conditions: { ready: true, serving: true, terminating: false } }],
      ports: [{ name: 'webhook', port: 9443, protocol: 'TCP' }],
    },
  });

  return {
    process: serve,
    podAddress: netns.podAddress,
    readyz,
    async syncSecret() {
      projection.project(await readSecret());
    },
    stop: () => serve.stop(),
  };
}

/**
 * A Secret volume as the kubelet lays it out: `tls.crt -> ..data/tls.crt`,
 * `..data -> ..<version>`; an update writes a new version directory and swaps
 * `..data` with one rename, so a reader never sees half of it.
 */
class SecretProjection {
  private version = 0;
  private current: string | undefined;
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  project(data: Record<string, string>): void {
    const versionDir = `..${Date.now()}_${++this.version}`;
    mkdirSync(path.join(this.dir, versionDir));
    for (const [key, value] of Object.entries(data)) writeFileSync(path.join(this.dir, versionDir, key), Buffer.from(value, 'base64'), { mode: 0o600 });
    symlinkSync(versionDir, path.join(this.dir, '..data_tmp'));
    renameSync(path.join(this.dir, '..data_tmp'), path.join(this.dir, '..data'));
    for (const key of Object.keys(data)) {
      if (!existsSync(path.join(this.dir, key))) symlinkSync(path.join('..data', key), path.join(this.dir, key));
    }
    if (this.current) rmSync(path.join(this.dir, this.current), { recursive: true, force: true });
    this.current = versionDir;
  }
}
