/**
 * The controllers that turn the chart's objects into running pods: the
 * Deployment and ReplicaSet controllers, EndpointSlices, the disruption
 * (PodDisruptionBudget) and garbage collectors, `kube-root-ca.crt` for the
 * projected ServiceAccount volume (kube-controller-manager), and the
 * scheduler. Both run on the host against the API server on loopback.
 */
import path from 'node:path';
import { freePort } from '../free-port.ts';
import type { ControlPlane } from './control-plane.ts';
import { startProcess, type ManagedProcess } from './processes.ts';
import { tool } from './tools.ts';

export async function startControllers(controlPlane: ControlPlane, dir: string, log: (line: string) => void): Promise<ManagedProcess[]> {
  const kubeconfig = controlPlane.kubeconfigPath;
  const delegated = [`--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`, '--leader-elect=false', '--bind-address=127.0.0.1'];
  log('starting kube-controller-manager and kube-scheduler');
  const controllerManager = startProcess(
    'kube-controller-manager',
    tool('kube-controller-manager'),
    [
      ...delegated,
      `--secure-port=${await freePort()}`,
      `--service-account-private-key-file=${controlPlane.files.serviceAccountKey}`,
      `--root-ca-file=${controlPlane.files.caCert}`,
      '--use-service-account-credentials=false',
      // Quick reactions, for a test cluster: a rollout's next step, a node's state.
      '--concurrent-deployment-syncs=2',
      '--node-monitor-grace-period=40s',
      '--v=1',
    ],
    path.join(dir, 'kube-controller-manager.log'),
  );
  const scheduler = startProcess('kube-scheduler', tool('kube-scheduler'), [...delegated, `--secure-port=${await freePort()}`, '--v=1'], path.join(dir, 'kube-scheduler.log'));
  return [controllerManager, scheduler];
}
