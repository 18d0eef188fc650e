/**
 * The health port, served from a worker thread so that a probe is answered
 * while the main thread is busy with a large review. Liveness is decided in
 * the worker from a heartbeat the main thread writes to shared memory: it
 * fails only when the main thread has not run for `stallMs` (a truly stuck
 * process), never because one review takes a few seconds. Every other path
 * (readiness, metrics on a shared port) is asked of the main thread with a
 * time limit, so readiness does turn false while the loop is blocked.
 */
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';

export interface ProbeAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface ProbeListenerOptions {
  readonly port: number;
  readonly bindAddress: string;
  /** Liveness fails once the main thread has not run for this long. */
  readonly stallMs: number;
  /** How long the worker waits for the main thread's answer to anything but liveness. */
  readonly relayMs: number;
  /** The main thread's answer for a path other than /healthz and /livez. */
  readonly answer: (path: string, verbose: boolean) => Promise<ProbeAnswer>;
}

const HEARTBEAT_MS = 250;

export class ProbeListener {
  private constructor(
    private readonly worker: Worker,
    private readonly heartbeat: NodeJS.Timeout,
    readonly address: AddressInfo,
  ) {}

  static async start(options: ProbeListenerOptions): Promise<ProbeListener> {
    const shared = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT);
    const lastBeat = new Float64Array(shared);
    const beat = () => {
      lastBeat[0] = Date.now();
    };
    beat();
    // An eval'd worker: the same code runs from the TypeScript sources and the build, with no file to locate.
    const worker = new Worker(`(${probeWorker.toString()})()`, {
      eval: true,
      workerData: { shared, port: options.port, host: options.bindAddress || undefined, stallMs: options.stallMs, relayMs: options.relayMs },
    });
    worker.unref();
    worker.on('message', (message: { type: string; id?: number; path?: string; verbose?: boolean }) => {
      if (message.type !== 'ask') return;
      options.answer(message.path!, message.verbose!).then(
        (answer) => worker.postMessage({ type: 'answer', id: message.id, ...answer }),
        (error: unknown) => worker.postMessage({ type: 'answer', id: message.id, status: 500, contentType: 'text/plain', body: `${(error as Error).message}\n` }),
      );
    });
    const address = await new Promise<AddressInfo>((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (message: { type: string; address?: AddressInfo; error?: string }) => {
        if (message.type === 'listening') resolve(message.address!);
        if (message.type === 'failed') reject(new Error(message.error));
      });
    });
    const heartbeat = setInterval(beat, HEARTBEAT_MS).unref();
    return new ProbeListener(worker, heartbeat, address);
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.worker.terminate();
  }
}

/** Runs in the worker thread; only node: built-ins and what workerData carries. */
function probeWorker(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  const { parentPort } = threads;
  const http = require('node:http') as typeof import('node:http');
  const { shared, port, host, stallMs, relayMs } = threads.workerData as { shared: SharedArrayBuffer; port: number; host?: string; stallMs: number; relayMs: number };
  const lastBeat = new Float64Array(shared);
  const waiting = new Map<number, (answer: { status: number; contentType: string; body: string }) => void>();
  let nextId = 0;

  const reply = (res: import('node:http').ServerResponse, status: number, contentType: string, body: string) => {
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://probe');
    const verbose = url.searchParams.has('verbose');
    const stalled = Date.now() - lastBeat[0]!;
    const busy = `[-]event-loop failed: the main thread has not run for ${(stalled / 1000).toFixed(1)} s`;
    if (url.pathname === '/healthz' || url.pathname === '/livez') {
      const endpoint = url.pathname.slice(1);
      if (stalled > stallMs) return reply(res, 500, 'text/plain', `[+]ping ok\n${busy}\n${endpoint} check failed\n`);
      return reply(res, 200, 'text/plain', verbose ? `[+]ping ok\n[+]event-loop ok\n${endpoint} check passed\n` : 'ok\n');
    }
    const id = nextId++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      const endpoint = url.pathname.slice(1) || 'probe';
      reply(res, 503, 'text/plain', `${busy}\n${endpoint} check failed\n`);
    }, relayMs);
    waiting.set(id, (answer) => {
      clearTimeout(timer);
      reply(res, answer.status, answer.contentType, answer.body);
    });
    parentPort!.postMessage({ type: 'ask', id, path: url.pathname, verbose });
  });
  parentPort!.on('message', (message: { type: string; id: number; status: number; contentType: string; body: string }) => {
    if (message.type !== 'answer') return;
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message);
  });
  server.on('error', (error) => parentPort!.postMessage({ type: 'failed', error: error.message }));
  server.listen(port, host, () => {
    // Before saying so: V8's flags are the process's, and the main thread sets the same one once this has started.
    releaseStartupHeap();
    parentPort!.postMessage({ type: 'listening', address: server.address() });
  });

  // startup-heap.ts's collection for this thread's own heap (about 2.5 MiB of idle RSS); an eval'd worker imports nothing.
  function releaseStartupHeap(): void {
    const v8 = require('node:v8') as typeof import('node:v8');
    const vm = require('node:vm') as typeof import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('typeof gc === "function" ? gc : undefined') as ((options: object) => void) | undefined;
    v8.setFlagsFromString('--no-expose-gc');
    gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  }
}
