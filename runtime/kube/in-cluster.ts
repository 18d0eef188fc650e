/** The API server as a pod sees it: the `kubernetes` Service from the environment, the mounted ServiceAccount's CA and token. */
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import path from 'node:path';
import type { ConnectionSettings } from './connection-settings.js';
import { TokenFile } from './token-source.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export function inClusterSettings(env: NodeJS.ProcessEnv = process.env, serviceAccountDir = SERVICE_ACCOUNT_DIR): ConnectionSettings {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const source = `the in-cluster ServiceAccount (${serviceAccountDir})`;
  if (!host || !port) throw new Error(`${source}: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set, as the kubelet sets them in a pod; outside a pod, set KUBECONFIG`);
  const caFile = path.join(serviceAccountDir, 'ca.crt');
  let ca: Buffer;
  try {
    ca = readFileSync(caFile);
  } catch (error) {
    throw new Error(`${source}: cannot read ${caFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  let token: TokenFile;
  try {
    token = new TokenFile(path.join(serviceAccountDir, 'token'));
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`, { cause: error });
  }
  return { server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, source, ca, token };
}
