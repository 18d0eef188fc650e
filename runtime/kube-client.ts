/**
 * The Kubernetes API access handlers get as `ctx.kube`: loaded on first use,
 * one client per API class. @kubernetes/client-node costs ~80 MiB of RSS to
 * load, so a server whose handlers never call the API never loads it.
 */
import { createRequire } from 'node:module';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from './contract.js';

const require = createRequire(import.meta.url);

export class LazyKubeClient implements KubeClient {
  private loaded: KubeConfig | undefined;
  private readonly clients = new Map<Function, unknown>();

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
  // Synchronous require of the ES module (Node >= 22.12), so that `ctx.kube.config` stays a plain getter.
  const { KubeConfig } = require('@kubernetes/client-node') as typeof import('@kubernetes/client-node');
  const config = new KubeConfig();
  config.loadFromDefault();
  return config;
}
