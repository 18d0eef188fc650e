/**
 * The server's object cache: one informer per resource any webhook declares
 * in `cache`, started with the server, over one ApiConnection of its own
 * (loaded at start, not with @kubernetes/client-node). A read is answered from
 * memory when the informer is synced and its watch is up; a miss, an explicit
 * `live` read, or a watch that is down goes to the API server instead.
 */
import { cloneJson } from '../webhook/admission/json-value.js';
import type { Logger } from 'pino';
import type { KubernetesObject, ReadOptions } from '../webhook/contract.js';
import { ApiConnection } from '../kube/api-connection.js';
import type { ResolvedWebhook } from '../webhook/options/types.js';
import { ApiReader } from './api-reader.js';
import { resourceKey, sameResource, type CachedResource } from './cached-resource.js';
import type { ObjectSource } from './object-source.js';
import { ResourceInformer } from './resource-informer.js';

/** Where a read was answered: from memory, from the API server after a miss, on request, or because the watch was down. */
export type ReadSource = 'cache' | 'miss' | 'live' | 'stale';

export class InformerCache implements ObjectSource {
  private informers: ResourceInformer[] = [];
  private started = false;
  private startError: string | undefined;
  private connection: ApiConnection | undefined;
  private reader: ApiReader | undefined;

  /** `connect` defaults to KUBECONFIG, ~/.kube/config or the in-cluster ServiceAccount; it is called once, at start or on the first read. */
  constructor(
    readonly resources: readonly CachedResource[],
    private readonly log: Logger,
    private readonly onRead: (resource: CachedResource, source: ReadSource) => void = () => undefined,
    private readonly connect: () => ApiConnection = () => ApiConnection.fromEnvironment(),
  ) {}

  /** Every resource declared by any of the webhooks, once. */
  static resourcesOf(webhooks: Iterable<ResolvedWebhook>): CachedResource[] {
    const resources: CachedResource[] = [];
    for (const webhook of webhooks) {
      for (const resource of webhook.cache) if (!resources.some((known) => sameResource(known, resource))) resources.push(resource);
    }
    return resources;
  }

  /** Starts the informers; returns at once. Readiness (`problem`) tells when they are synced. */
  start(): void {
    if (this.resources.length === 0 || this.started) return;
    this.started = true;
    let connection: ApiConnection;
    try {
      connection = this.api().connection;
    } catch (error) {
      this.startError = (error as Error).message;
      this.log.error(`cannot start the object cache: ${this.startError}`);
      return;
    }
    for (const resource of this.resources) {
      const informer = new ResourceInformer(resource, connection, this.log);
      this.informers.push(informer);
      informer.start();
    }
  }

  /** For readiness: why the cache is not ready, until every informer has synced once. */
  problem(): string | undefined {
    if (this.startError) return `cannot start: ${this.startError}`;
    const waiting = this.resources.filter((resource) => !this.informerFor(resource)?.hasSynced);
    if (waiting.length === 0) return undefined;
    return waiting.map((resource) => `${resourceKey(resource)} ${this.informerFor(resource)?.problem ?? 'not synced yet'}`).join('; ');
  }

  async get(resource: CachedResource, namespace: string | undefined, name: string, options: ReadOptions, signal: AbortSignal): Promise<KubernetesObject | undefined> {
    const informer = this.informerFor(resource);
    const answeredBy = options.live ? 'live' : informer?.isFresh ? undefined : 'stale';
    if (answeredBy) {
      this.onRead(resource, answeredBy);
      return this.api().reader.get(resource, namespace, name, signal);
    }
    const cached = informer!.get(namespace, name);
    if (cached) {
      this.onRead(resource, 'cache');
      return cloneJson(cached);
    }
    this.onRead(resource, 'miss');
    return this.api().reader.get(resource, namespace, name, signal);
  }

  async list(resource: CachedResource, namespace: string | undefined, options: ReadOptions): Promise<KubernetesObject[]> {
    const informer = this.informerFor(resource);
    if (options.live || !informer?.isFresh) {
      this.onRead(resource, options.live ? 'live' : 'stale');
      return (await this.api().reader.list(resource, namespace)).items;
    }
    this.onRead(resource, 'cache');
    return cloneJson(informer.list(namespace));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.stop()));
    this.connection?.close();
  }

  /** The connection and its reader, made on first use; a configuration that cannot be loaded throws on every use. */
  private api(): { connection: ApiConnection; reader: ApiReader } {
    this.connection ??= this.connect();
    this.reader ??= new ApiReader(this.connection);
    return { connection: this.connection, reader: this.reader };
  }

  private informerFor(resource: CachedResource): ResourceInformer | undefined {
    return this.informers.find((informer) => sameResource(informer.resource, resource));
  }
}
