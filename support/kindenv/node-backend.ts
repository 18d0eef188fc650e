/**
 * The `node` backend (default; what CI runs): the control plane of
 * control-plane.ts, kube-controller-manager and kube-scheduler, and a node
 * (node.ts) whose kubelet runs the chart's Deployment from the image built
 * from the project's Dockerfile. helm installs the chart as a user would;
 * the kubelet mounts the serving certificate, projects the token and runs
 * the probes; EndpointSlices come from the controller-manager.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AppsV1Api, CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { REPO_ROOT } from '../repo-root.ts';
import { httpText } from '../http-text.ts';
import { startControlPlane, type ControlPlane } from './control-plane.ts';
import { startControllers } from './controllers.ts';
import { baseImages, buildImage, type BuiltImage } from './images.ts';
import { helmFullname, labelledNamespace, type KindEnv, type KindEnvPod } from './kindenv.ts';
import { createNetworkNamespace } from './netns.ts';
import { startNode, type KindNode } from './node.ts';
import { waitFor, type ManagedProcess } from './processes.ts';
import { tool } from './tools.ts';
import { unmountUnder } from './mounts.ts';

const run = promisify(execFile);

export async function createNodeBackend(log: (line: string) => void): Promise<KindEnv> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-kindenv-'));
  const netns = createNetworkNamespace();
  let controlPlane: ControlPlane | undefined;
  let controllers: ManagedProcess[] = [];
  let node: KindNode | undefined;
  let kubeConfig: KubeConfig | undefined;
  const stop = async () => {
    if (node && kubeConfig) await removeAllPods(kubeConfig, log).catch((error: unknown) => log(`removing pods: ${error instanceof Error ? error.message : String(error)}`));
    await node?.stop();
    for (const process of controllers.reverse()) await process.stop();
    await controlPlane?.stop();
    unmountUnder(dir);
    netns.remove();
    if (!process.env.SHAPER_KINDENV_KEEP) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const imagesReady = baseImages();
    controlPlane = await startControlPlane({ dir, hostAddress: netns.hostAddress, log });
    const cp = controlPlane;
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    const kc = kubeConfig;
    controllers = await startControllers(cp, dir, log);
    netns.routePods();
    const images = await imagesReady;
    node = await startNode({ dir, netns, kubeConfig: kc, kubeconfigFromNode: cp.files.kubeconfigFromPod, pauseImage: images.pause, log });
    const theNode = node;
    const helm = (args: string[]) => run(tool('helm'), [...args, '--kubeconfig', cp.kubeconfigPath], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
    const core = kc.makeApiClient(CoreV1Api);
    let release: { namespace: string; fullname: string; release: string } | undefined;
    const installed = () => {
      if (!release) throw new Error('installChart() first');
      return release;
    };
    const pods = async (): Promise<KindEnvPod[]> => {
      const { namespace, release: name } = installed();
      const list = await core.listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/instance=${name}` });
      return list.items.filter((pod) => pod.status?.podIP && !pod.metadata?.deletionTimestamp).map(describePod);
    };
    const built = new Map<string, BuiltImage>();
    const buildAndLoad = async (contextDir: string) => {
      const cached = built.get(contextDir);
      if (cached) return cached;
      log(`building the image from ${path.join(contextDir, 'Dockerfile')} with buildah`);
      const repository = `localhost/${contextDir === REPO_ROOT ? 'shaper-webhooks' : path.basename(contextDir)}`;
      const image = await buildImage(contextDir, repository, images.nodeBase);
      log(`built ${image.name} (${image.size}) in ${image.buildSeconds.toFixed(0)} s; loading it into the node`);
      await theNode.loadImage(image.name);
      built.set(contextDir, image);
      return image;
    };
    return {
      backend: 'node',
      kubeConfig: kc,
      kubeconfigPath: cp.kubeconfigPath,
      helm,
      buildImage: (contextDir = REPO_ROOT) => buildAndLoad(contextDir),
      async installChart(values = {}, options = {}) {
        const chartDir = options.chartDir ?? path.join(REPO_ROOT, 'charts/shaper-webhooks');
        const name = options.release ?? 'shaper';
        const namespace = options.namespace ?? 'shaper-system';
        const image = await buildAndLoad(options.appDir ?? REPO_ROOT);
        await core.createNamespace({ body: labelledNamespace(namespace) });
        const sets = Object.entries({ image: { repository: image.repository, tag: image.tag, pullPolicy: 'Never' }, ...values }).flatMap(([key, value]) => [
          '--set-json',
          `${key}=${JSON.stringify(value)}`,
        ]);
        release = { namespace, release: name, fullname: helmFullname(name, chartDir) };
        log(`helm install ${name} ${path.relative(REPO_ROOT, chartDir) || chartDir} -n ${namespace} --wait`);
        const { stderr } = await helm(['install', name, chartDir, '--namespace', namespace, '--wait', '--timeout', '300s', ...sets]);
        log(`release ${name} is ready: ${(await pods()).map((pod) => `${pod.name} ${pod.address}`).join(', ')}`);
        return { stderr };
      },
      async readyz() {
        const [pod] = (await pods()).filter((candidate) => candidate.ready);
        if (!pod) return { status: 503, text: 'no ready pod' };
        return httpText(pod.address, 8081, '/readyz?verbose', 3000);
      },
      pods,
      // The kubelet projects the renewed Secret into every pod by itself.
      syncServingSecret: async () => undefined,
      async stopServer() {
        const { namespace, fullname } = installed();
        await kc.makeApiClient(AppsV1Api).patchNamespacedDeploymentScale({ name: fullname, namespace, body: [{ op: 'replace', path: '/spec/replicas', value: 0 }] });
        // Gone, not just terminating: a draining pod still answers.
        await waitFor(
          'the server pods to be gone',
          async () => {
            const { items } = await core.listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/instance=${installed().release}` });
            return items.length === 0 ? true : undefined;
          },
          120_000,
          500,
        );
      },
      restartApiServer: () => cp.restartApiServer(),
      logs(name, lines = 40) {
        if (name === 'serve') {
          const current = release;
          if (!current) return '';
          return theNode.containerLogs(current.namespace).split('\n').slice(-lines).join('\n');
        }
        const process = [...cp.processes, ...controllers, ...theNode.processes].find((p) => p.name === name);
        return process?.tail(lines) ?? '';
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function describePod(pod: V1Pod): KindEnvPod {
  return {
    name: pod.metadata!.name!,
    address: pod.status!.podIP!,
    ready: pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
    uid: pod.metadata!.uid!,
  };
}

/** Deletes every pod with a one-second grace: the kubelet stops their containers and tears down their networks before the node goes. */
async function removeAllPods(kubeConfig: KubeConfig, log: (line: string) => void): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { items } = await core.listPodForAllNamespaces({});
  if (items.length === 0) return;
  log(`deleting ${items.length} pods`);
  await Promise.all(items.map((pod) => core.deleteNamespacedPod({ name: pod.metadata!.name!, namespace: pod.metadata!.namespace!, gracePeriodSeconds: 1 }).catch(() => undefined)));
  await waitFor('the pods to be removed', async () => ((await core.listPodForAllNamespaces({})).items.length === 0 ? true : undefined), 60_000, 500).catch(() => undefined);
}
