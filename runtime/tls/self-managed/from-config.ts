/** Self-managed certificates as the ServerConfig describes them, reaching the API server as a pod (or KUBECONFIG) does. */
import os from 'node:os';
import type { Logger } from 'pino';
import type { ServerConfig } from '../../config/server-config.js';
import { ConfigError } from '../../problems.js';
import { ApiConnection } from '../../kube/api-connection.js';
import { SelfManagedCertificates } from './manager.js';

const REQUIRED = ['namespace', 'secretName', 'leaseName'] as const;

export function selfManagedCertificates(config: ServerConfig, log: Logger, reload: () => Promise<string | undefined>): SelfManagedCertificates {
  const settings = config.certificates;
  const missing = [...REQUIRED.filter((key) => settings[key] === ''), ...(settings.dnsNames.length === 0 ? ['dnsNames'] : [])];
  if (missing.length > 0) {
    throw new ConfigError(
      missing.map((key) => ({ path: ['certificates', key], message: 'must be set when certificates.mode is self-managed (the chart sets it)' })),
      'server configuration',
    );
  }
  const { certDir, certName, keyName } = config.webhook;
  return new SelfManagedCertificates({
    ...settings,
    api: ApiConnection.fromEnvironment(),
    // The pod's name (the chart sets POD_NAME from the downward API); the hostname is the pod's name too.
    identity: process.env.POD_NAME || os.hostname(),
    certFile: `${certDir}/${certName}`,
    keyFile: `${certDir}/${keyName}`,
    reload,
    log,
  });
}
