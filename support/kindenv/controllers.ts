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
import { startProcess, waitFor, type ManagedProcess } from './processes.ts';
import { tool } from './tools.ts';

export async function startControllers(controlPlane: ControlPlane, dir: string, log: (line: string) => void): Promise<ManagedProcess[]> {
  const kubeconfig = controlPlane.kubeconfigPath;
  const delegated = [`--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`, '--leader-elect=false', '--bind-address=127.0.0.1'];
  log('starting kube-controller-manager and kube-scheduler');
  const started = await Promise.allSettled([
    startServing(
      'kube-controller-manager',
      (port) => [
        ...delegated,
        `--secure-port=${port}`,
        `--service-account-private-key-file=${controlPlane.files.serviceAccountKey}`,
        `--root-ca-file=${controlPlane.files.caCert}`,
        '--use-service-account-credentials=false',
        // Quick reactions, for a test cluster: a rollout's next step, a node's state.
        '--concurrent-deployment-syncs=2',
        '--node-monitor-grace-period=40s',
        '--v=1',
      ],
      path.join(dir, 'kube-controller-manager.log'),
      log,
    ),
    startServing('kube-scheduler', (port) => [...delegated, `--secure-port=${port}`, '--v=1'], path.join(dir, 'kube-scheduler.log'), log),
  ]);
  const failed = started.find((result) => result.status === 'rejected');
  if (!failed) return started.map((result) => (result as PromiseFulfilledResult<ManagedProcess>).value);
  for (const result of started) if (result.status === 'fulfilled') await result.value.stop();
  throw failed.reason;
}

const ATTEMPTS = 5;

/**
 * Starts a component and waits until it serves on its --secure-port. Another
 * process can take the port between freePort's check and the bind (another
 * test run's on this shared machine: seen as "bind: address already in use",
 * the controller-manager gone and helm --wait timing out); the component then
 * exits at once and is started again on another port, a few times.
 */
async function startServing(name: 'kube-controller-manager' | 'kube-scheduler', args: (port: number) => string[], logFile: string, log: (line: string) => void): Promise<ManagedProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const started = startProcess(name, tool(name), args(port), logFile);
    const outcome = await waitFor(
      `${name} to serve on 127.0.0.1:${port}`,
      () => {
        if (started.tail(400).includes(`Serving securely on 127.0.0.1:${port}`)) return 'serving';
        return started.child.exitCode !== null || started.child.signalCode !== null ? 'exited' : undefined;
      },
      60_000,
      100,
    );
    if (outcome === 'serving') return started;
    if (attempt < ATTEMPTS && started.tail().includes('address already in use')) {
      log(`${name} could not bind 127.0.0.1:${port} (try ${attempt}); starting it on another port`);
      continue;
    }
    throw new Error(`${name} exited at start:\n${started.tail()}`);
  }
}
