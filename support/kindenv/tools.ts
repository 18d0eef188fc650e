/**
 * The pinned binaries scripts/install-cluster-tools.sh and install-helm.sh put in the cache.
 *
 * The cluster components are run from their versioned directories
 * ($CACHE/tools/<component>-<version>/, versions from scripts/cluster/versions.env),
 * not through the links in $CACHE/bin: two checkouts with different pins
 * sharing one cache each run their own. helm is run through its link.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../repo-root.ts';

export const CACHE = process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen');

export type Tool = 'etcd' | 'kube-apiserver' | 'kubelet' | 'kube-controller-manager' | 'kube-scheduler' | 'kube-proxy' | 'kubectl' | 'shaper-cert-manager' | 'helm';

export interface PinnedVersions {
  readonly KUBERNETES_VERSION: string;
  readonly OLDEST_KUBERNETES_VERSION: string;
  readonly ETCD_VERSION: string;
  readonly CERT_MANAGER_VERSION: string;
}

const VERSIONS_FILE = path.join(REPO_ROOT, 'scripts/cluster/versions.env');

/** scripts/cluster/versions.env: `NAME=value` lines, `#` comments. */
export function pinnedVersions(): PinnedVersions {
  const entries = readFileSync(VERSIONS_FILE, 'utf8')
    .split('\n')
    .map((line) => /^([A-Z_]+)=(\S+)$/.exec(line.trim()))
    .filter((match) => match !== null)
    .map((match) => [match[1]!, match[2]!] as const);
  const versions = Object.fromEntries(entries) as Record<string, string>;
  for (const name of ['KUBERNETES_VERSION', 'OLDEST_KUBERNETES_VERSION', 'ETCD_VERSION', 'CERT_MANAGER_VERSION']) {
    if (!versions[name]) throw new Error(`${VERSIONS_FILE} does not set ${name}`);
  }
  return versions as unknown as PinnedVersions;
}

function installed(file: string, name: string): string {
  if (!existsSync(file)) throw new Error(`${name} is not installed at ${file}; run: bash scripts/install-cluster-tools.sh (and scripts/install-helm.sh)`);
  return file;
}

function certManagerDir(): string {
  return path.join(CACHE, 'tools', `cert-manager-${pinnedVersions().CERT_MANAGER_VERSION}`);
}

export function tool(name: Tool): string {
  const versions = pinnedVersions();
  switch (name) {
    case 'helm':
      return installed(path.join(CACHE, 'bin', name), name);
    case 'etcd':
      return installed(path.join(CACHE, 'tools', `etcd-${versions.ETCD_VERSION}`, name), name);
    case 'shaper-cert-manager': {
      // Keyed by the hash of our main.go as well, as install-cluster-tools.sh builds it.
      const sum = createHash('sha256')
        .update(readFileSync(path.join(REPO_ROOT, 'scripts/cluster/cert-manager/main.go')))
        .digest('hex')
        .slice(0, 12);
      return installed(path.join(certManagerDir(), `shaper-cert-manager-${sum}`), name);
    }
    default:
      return installed(path.join(CACHE, 'tools', `kubernetes-${versions.KUBERNETES_VERSION}`, name), name);
  }
}

/** The kube-apiserver of the oldest Kubernetes minor the generated configurations are declared to support. */
export function oldestApiServer(): { version: string; binary: string } {
  const version = pinnedVersions().OLDEST_KUBERNETES_VERSION;
  return { version, binary: installed(path.join(CACHE, 'tools', `kubernetes-${version}`, 'kube-apiserver'), `kube-apiserver ${version}`) };
}

export function certManagerCrdsDir(): string {
  const dir = path.join(certManagerDir(), 'crds');
  if (!existsSync(dir)) throw new Error(`cert-manager CRDs missing at ${dir}; run: bash scripts/install-cluster-tools.sh`);
  return dir;
}
