/** The pinned binaries scripts/install-cluster-tools.sh and install-helm.sh put in the cache. */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CACHE = process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen');

export type Tool = 'etcd' | 'kube-apiserver' | 'kubelet' | 'kube-controller-manager' | 'kube-scheduler' | 'kube-proxy' | 'shaper-cert-manager' | 'helm';

export function tool(name: Tool): string {
  const file = path.join(CACHE, 'bin', name);
  if (!existsSync(file)) throw new Error(`${name} is not installed at ${file}; run: bash scripts/install-cluster-tools.sh (and scripts/install-helm.sh)`);
  return file;
}

export function certManagerCrdsDir(): string {
  const dir = path.join(CACHE, 'cert-manager-crds');
  if (!existsSync(dir)) throw new Error(`cert-manager CRDs missing at ${dir}; run: bash scripts/install-cluster-tools.sh`);
  return dir;
}
