/**
 * Finds the connection settings where @kubernetes/client-node's
 * loadFromDefault looks, in its order: the first file of KUBECONFIG,
 * ~/.kube/config, then the in-cluster ServiceAccount.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConnectionSettings } from './connection-settings.js';
import { inClusterSettings, SERVICE_ACCOUNT_DIR } from './in-cluster.js';
import { readKubeconfig } from './kubeconfig.js';

export interface Environment {
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
  readonly serviceAccountDir?: string;
}

export function loadConnectionSettings({ env = process.env, home = env.HOME || os.homedir(), serviceAccountDir = SERVICE_ACCOUNT_DIR }: Environment = {}): ConnectionSettings {
  const first = env.KUBECONFIG?.split(path.delimiter).find((file) => file !== '');
  if (first) return readKubeconfig(first);
  const homeConfig = path.join(home, '.kube', 'config');
  if (existsSync(homeConfig)) return readKubeconfig(homeConfig);
  if (existsSync(path.join(serviceAccountDir, 'token'))) return inClusterSettings(env, serviceAccountDir);
  throw new Error('no Kubernetes API configuration: set KUBECONFIG, create ~/.kube/config, or run in a pod (its ServiceAccount)');
}
