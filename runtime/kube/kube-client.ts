/**
 * The Kubernetes API access handlers get as `ctx.kube`: loaded on first use,
 * one client per API class. @kubernetes/client-node costs ~80 MiB of RSS to
 * load, so a server whose handlers never call the API never loads it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '../webhook/contract.js';

const require = createRequire(import.meta.url);

export class LazyKubeClient implements KubeClient {
  private loaded: KubeConfig | undefined;
  private readonly clients = new Map<new (...args: never[]) => unknown, unknown>();

  /** `load` defaults to KUBECONFIG, ~/.kube/config or the in-cluster service account, in that order. */
  constructor(private readonly load: () => KubeConfig = defaultKubeConfig) {}

  get config(): KubeConfig {
    return (this.loaded ??= this.load());
  }

  api<T>(apiClass: new (...args: never[]) => T): T {
    let client = this.clients.get(apiClass) as T | undefined;
    if (!client) {
      client = this.config.makeApiClient(apiClass as never) as T;
      this.clients.set(apiClass, client);
    }
    return client;
  }
}

function defaultKubeConfig(): KubeConfig {
  // client-node would fall back to http://localhost:8080 and fail later with a message about TLS settings.
  const home = process.env.HOME ?? process.env.USERPROFILE;
  const found = process.env.KUBECONFIG || process.env.KUBERNETES_SERVICE_HOST || (home && existsSync(path.join(home, '.kube', 'config')));
  if (!found) throw new Error('no Kubernetes API configuration: set KUBECONFIG, create ~/.kube/config, or run in a pod (its ServiceAccount)');
  const { KubeConfig } = loadClientNode();
  const config = new KubeConfig();
  config.loadFromDefault();
  return config;
}

/**
 * @kubernetes/client-node, which shaper-gen does not depend on: a project whose handlers call ctx.kube lists it in
 * its own dependencies, so that the images of projects that do not call it carry none of its ~25 MB.
 */
export function loadClientNode(): typeof import('@kubernetes/client-node') {
  try {
    // Synchronous require of the ES module (Node >= 22.12), so that `ctx.kube.config` stays a plain getter.
    return require('@kubernetes/client-node') as typeof import('@kubernetes/client-node');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    // The versions shaper-gen is tested with: its own devDependencies.
    const { devDependencies } = require('shaper-gen/package.json') as { devDependencies: Record<string, string> };
    const range = devDependencies['@kubernetes/client-node'];
    throw new Error(
      `ctx.kube needs @kubernetes/client-node, which is not installed: add it to the project's dependencies (npm install @kubernetes/client-node@${range}), not devDependencies, so that the image has it`,
      { cause: error },
    );
  }
}
