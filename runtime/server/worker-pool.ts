/**
 * `workers` above 1: this primary process forks that many `serve` processes
 * (node:cluster), which share the webhook port — the primary holds the socket
 * and hands each connection to a worker in turn. The primary serves the
 * health and metrics ports itself: ready only when every worker is, metrics
 * summed over the workers (prom-client's AggregatorRegistry). A worker that
 * dies is replaced; one that dies before it ever served stops the whole
 * server (a configuration or handler problem would only repeat). SIGTERM:
 * unready at once, every worker drains as a single server does, then exit.
 */
import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { ListenerConfig, ServerConfig } from '../config/server-config.js';
import { listen, sharedProbePort } from './listen.js';
import { TEXT, writeResponse } from './write-response.js';

/** The primary's answer deadline for a worker's readiness: inside the kubelet's 1 s probe timeout. */
const WORKER_ANSWER_MS = 800;
const RESTART_DELAY_MS = 1000;

export const WORKER_SLOT_ENV = 'SHAPER_GEN_WORKER_SLOT';

/** Messages between the primary and a worker. */
export type ToWorker = { type: 'readyz'; id: number; verbose: boolean } | { type: 'shutdown' };
export type FromWorker = { type: 'serving' } | { type: 'readyz'; id: number; status: number; text: string };

interface Slot {
  worker: Worker;
  served: boolean;
}

export class WorkerPool {
  private readonly slots = new Map<number, Slot>();
  private readonly aggregator = new AggregatorRegistry();
  private readonly listeners: http.Server[] = [];
  private readonly waiting = new Map<number, (answer: { status: number; text: string }) => void>();
  private nextId = 0;
  private shuttingDown = false;
  private failed: ((error: Error) => void) | undefined;

  constructor(
    private readonly config: ServerConfig,
    private readonly log: Logger,
  ) {}

  /** Forks the workers and opens health and metrics; resolves once every worker serves, rejects if one dies first. */
  async start(): Promise<{ health?: AddressInfo; metrics?: AddressInfo }> {
    const everyoneServing = new Promise<void>((resolve, reject) => {
      this.failed = reject;
      const check = () => [...this.slots.values()].every((slot) => slot.served) && resolve();
      for (let slot = 1; slot <= this.config.workers; slot++) this.fork(slot, check);
    });
    const addresses: { health?: AddressInfo; metrics?: AddressInfo } = {};
    const { health, metrics } = this.config;
    const shared = sharedProbePort(this.config);
    if (health.port !== 0) addresses.health = await this.listen(health, (req, res) => this.probe(req, res, shared));
    if (metrics.port !== 0 && !shared) addresses.metrics = await this.listen(metrics, (req, res) => this.probe(req, res, true));
    if (shared) addresses.metrics = addresses.health;
    await everyoneServing;
    this.log.info({ workers: this.config.workers }, `serving with ${this.config.workers} worker processes`);
    return addresses;
  }

  /** Unready at once; every worker drains and exits; bounded by the drain and shutdown timeouts. */
  async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.log.info('shutting down: unready, workers draining');
    const exits = [...this.slots.values()].map(({ worker }) => (worker.isDead() ? Promise.resolve() : new Promise<void>((resolve) => worker.once('exit', () => resolve()))));
    for (const { worker } of this.slots.values()) send(worker, { type: 'shutdown' });
    const { drainSeconds, timeoutSeconds } = this.config.shutdown;
    const bound = setTimeout(
      () => {
        this.log.warn('workers still running at the shutdown timeout; killing them');
        for (const { worker } of this.slots.values()) worker.process.kill('SIGKILL');
      },
      (drainSeconds + timeoutSeconds + 5) * 1000,
    );
    await Promise.all(exits);
    clearTimeout(bound);
    await Promise.all(this.listeners.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    this.log.info('stopped');
  }

  private fork(slot: number, onServing: () => void): void {
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slot) });
    const entry: Slot = { worker, served: false };
    this.slots.set(slot, entry);
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'serving') {
        entry.served = true;
        onServing();
        return;
      }
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- other IPC messages (prom-client's metric replies) arrive here too
      if (message.type === 'readyz') {
        this.waiting.get(message.id)?.(message);
        this.waiting.delete(message.id);
      }
    });
    // A message to a worker that is exiting fails with EPIPE on its closed channel; its 'exit' handler below
    // decides what that exit means, so the error is only logged (unhandled, it would kill the primary).
    worker.on('error', (error) => this.log.debug({ worker: slot, err: error }, `worker ${slot}: ${error.message}`));
    worker.on('exit', (code, signal) => {
      if (this.shuttingDown || this.slots.get(slot) !== entry) return;
      if (!entry.served) {
        this.failed?.(new Error(`worker ${slot} exited (${(signal as string | null) ?? `code ${code}`}) before it served; see its output above`));
        return;
      }
      this.log.error({ worker: slot, pid: worker.process.pid, code, signal }, `worker ${slot} exited; starting another`);
      setTimeout(() => !this.shuttingDown && this.fork(slot, () => undefined), RESTART_DELAY_MS).unref();
    });
  }

  private async readiness(verbose: boolean): Promise<{ status: number; text: string }> {
    const lines: string[] = [this.shuttingDown ? '[-]shutdown failed: shutting down' : '[+]shutdown ok'];
    let ready = !this.shuttingDown;
    for (let slot = 1; slot <= this.config.workers; slot++) {
      const entry = this.slots.get(slot);
      const answer = entry && entry.served && !entry.worker.isDead() ? await this.ask(entry.worker, verbose) : undefined;
      if (answer?.status === 200) {
        lines.push(`[+]worker-${slot} ok`);
      } else {
        ready = false;
        const why = answer
          ? answer.text
              .split('\n')
              .filter((line) => line.startsWith('[-]'))
              .join('; ')
          : entry?.served
            ? `no answer within ${WORKER_ANSWER_MS} ms`
            : 'starting';
        lines.push(`[-]worker-${slot} failed: ${why}`);
      }
    }
    const listed = verbose || !ready ? lines : [];
    return { status: ready ? 200 : 503, text: `${[...listed, ready ? (verbose ? 'readyz check passed' : 'ok') : 'readyz check failed'].join('\n')}\n` };
  }

  private ask(worker: Worker, verbose: boolean): Promise<{ status: number; text: string } | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(undefined);
      }, WORKER_ANSWER_MS);
      this.waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      send(worker, { type: 'readyz', id, verbose });
    });
  }

  private probe(req: http.IncomingMessage, res: http.ServerResponse, withMetrics: boolean): void {
    const url = new URL(req.url ?? '/', 'http://probe');
    const reply = (status: number, contentType: string, body: string) => writeResponse(res, status, contentType, body);
    if (url.pathname === '/healthz' || url.pathname === '/livez') return reply(200, TEXT, 'ok\n');
    if (url.pathname === '/readyz') {
      void this.readiness(url.searchParams.has('verbose')).then(({ status, text }) => reply(status, TEXT, text));
      return;
    }
    if (url.pathname === '/metrics' && withMetrics) {
      this.aggregator.clusterMetrics().then(
        (text) => reply(200, this.aggregator.contentType, text),
        (error: unknown) => reply(500, TEXT, `${(error as Error).message}\n`),
      );
      return;
    }
    reply(404, TEXT, `nothing at ${url.pathname}\n`);
  }

  private listen(config: ListenerConfig, handler: http.RequestListener): Promise<AddressInfo> {
    const server = http.createServer(handler);
    this.listeners.push(server);
    return listen(server, config);
  }
}

function send(worker: Worker, message: ToWorker): void {
  // The callback takes a send error (the worker exiting meanwhile) instead of an 'error' event.
  if (!worker.isDead() && worker.isConnected()) worker.send(message, undefined, () => undefined);
}
