/**
 * kindEnv: a real cluster for the integration scenarios, behind one interface.
 *
 * - `node` (default; what CI runs): etcd, kube-apiserver, cert-manager,
 *   kube-controller-manager, kube-scheduler and a node (containerd, runc, CNI,
 *   kubelet, kube-proxy) on this machine; the image built from the Dockerfile
 *   with buildah; the chart installed by the pinned helm runs as real pods.
 * - `local` (SHAPER_KINDENV=local): the same control plane without a node; the
 *   harness runs `shaper-gen serve` as the pod. Fast, for local iteration.
 * - `kind` (SHAPER_KINDENV=kind, needs Docker): see kind.ts.
 */
import type { KindEnv } from './kindenv.ts';

export * from './kindenv.ts';

export async function createKindEnv(log: (line: string) => void = (line) => process.stderr.write(`kindenv: ${line}\n`)): Promise<KindEnv> {
  const backend = process.env.SHAPER_KINDENV ?? 'node';
  if (backend === 'node') return (await import('./node-backend.ts')).createNodeBackend(log);
  if (backend === 'local') return (await import('./local-backend.ts')).createLocalBackend(log);
  if (backend === 'kind') return (await import('./kind.ts')).createKindBackend(log);
  throw new Error(`SHAPER_KINDENV=${backend}: expected node, local or kind`);
}
