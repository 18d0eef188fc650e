/**
 * The kind backend (SHAPER_KINDENV=kind), for machines with Docker: a kind
 * cluster, the image built and loaded, cert-manager's release manifest, then
 * the same chart and the same scenarios against real pods. It drives the
 * `kind`, `docker` and `kubectl` CLIs, which must be on PATH. Not runnable on
 * the project's CI machines (no Docker engine), so it is kept thin.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { REPO_ROOT } from '../repo-root.ts';
import type { KindEnv } from './kindenv.ts';
import { FULLNAME, RELEASE, RELEASE_NAMESPACE } from './kindenv.ts';
import { tool } from './tools.ts';

const run = promisify(execFile);
const CERT_MANAGER_MANIFEST = process.env.SHAPER_CERT_MANAGER_MANIFEST ?? 'https://github.com/cert-manager/cert-manager/releases/download/v1.21.2/cert-manager.yaml';

export async function createKindBackend(log: (line: string) => void): Promise<KindEnv> {
  await run('docker', ['info']).catch(() => {
    throw new Error('SHAPER_KINDENV=kind needs a running Docker engine (and kind, kubectl on PATH)');
  });
  const cluster = `shaper-${process.pid}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-kind-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  const kubectl = (args: string[]) => run('kubectl', ['--kubeconfig', kubeconfigPath, ...args]);
  log(`kind create cluster ${cluster}`);
  await run('kind', ['create', 'cluster', '--name', cluster, '--kubeconfig', kubeconfigPath, '--wait', '120s']);
  const stop = async () => {
    await run('kind', ['delete', 'cluster', '--name', cluster]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const image = `shaper-webhooks:kindenv-${process.pid}`;
    await run('docker', ['build', '-t', image, REPO_ROOT], { maxBuffer: 64 * 1024 * 1024 });
    await run('kind', ['load', 'docker-image', image, '--name', cluster]);
    await kubectl(['apply', '-f', CERT_MANAGER_MANIFEST]);
    await kubectl(['-n', 'cert-manager', 'wait', '--for=condition=Available', 'deployment', '--all', '--timeout=180s']);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    const helm = (args: string[]) => run(tool('helm'), [...args, '--kubeconfig', kubeconfigPath], { cwd: REPO_ROOT });
    const [repository, tag] = image.split(':') as [string, string];
    return {
      backend: 'kind',
      kubeConfig,
      kubeconfigPath,
      helm,
      async installChart(values = {}) {
        await kubectl(['create', 'namespace', RELEASE_NAMESPACE]);
        await kubectl(['label', 'namespace', RELEASE_NAMESPACE, 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted']);
        const sets = Object.entries({ image: { repository, tag, pullPolicy: 'Never' }, ...values }).flatMap(([k, v]) => ['--set-json', `${k}=${JSON.stringify(v)}`]);
        const { stderr } = await helm(['install', RELEASE, 'charts/shaper-webhooks', '--namespace', RELEASE_NAMESPACE, '--wait', '--timeout', '180s', ...sets]);
        return { stderr };
      },
      async readyz() {
        const { stdout } = await kubectl(['-n', RELEASE_NAMESPACE, 'get', 'deployment', FULLNAME, '-o', 'jsonpath={.status.readyReplicas}']);
        return { status: Number(stdout) > 0 ? 200 : 503, text: `readyReplicas=${stdout}` };
      },
      logs: () => '',
      async pods() {
        const { stdout } = await kubectl(['-n', RELEASE_NAMESPACE, 'get', 'pods', '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'json']);
        const items = (JSON.parse(stdout) as { items: { metadata: { name: string; uid: string }; status: { podIP?: string; conditions?: { type: string; status: string }[] } }[] }).items;
        // Pod IPs are inside Docker's network: reachable from the test only where the host routes to it.
        return items
          .filter((pod) => pod.status.podIP)
          .map((pod) => ({
            name: pod.metadata.name,
            uid: pod.metadata.uid,
            address: pod.status.podIP!,
            ready: pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
          }));
      },
      // The kubelet projects the Secret by itself.
      syncServingSecret: async () => undefined,
      async stopServer() {
        await kubectl(['-n', RELEASE_NAMESPACE, 'scale', 'deployment', FULLNAME, '--replicas=0']);
        await kubectl(['-n', RELEASE_NAMESPACE, 'wait', '--for=delete', 'pod', '-l', 'app.kubernetes.io/instance=' + RELEASE, '--timeout=120s']);
      },
      async restartApiServer() {
        throw new Error('kind backend: restarting kube-apiserver inside the node container is not implemented');
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
