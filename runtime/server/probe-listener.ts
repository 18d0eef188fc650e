/**
 * The health port, served from the main thread (docs/adr/0013-probes-on-the-main-thread.md).
 * A heartbeat timer measures how long the thread last went without running:
 * a probe that had to wait behind a busy thread is answered as soon as the
 * thread runs again, and says so. Liveness fails only when that wait passed
 * `stallMs` (a stuck process: the chart's liveness timeout is longer than
 * `stallMs`, so the kubelet waits for this answer), never because one review
 * took a few seconds; readiness fails once it passed `busyMs` (inside the
 * kubelet's 1 s probe timeout, which a busy thread misses anyway).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenerConfig } from '../config/server-config.js';
import { listen } from './listen.js';

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
  /** Readiness fails once the main thread has not run for this long. */
  readonly busyMs: number;
  /** The answer for a path other than /healthz and /livez. */
  readonly answer: (path: string, verbose: boolean) => Promise<ProbeAnswer>;
}

const HEARTBEAT_MS = 250;

/** How long the thread last went without running, as seen by a timer that should fire every HEARTBEAT_MS. */
class Heartbeat {
  private last = Date.now();
  /** The last gap between beats longer than a beat, and when it ended. */
  private gap = { ms: 0, endedAt: 0 };
  private readonly timer = setInterval(() => this.beat(), HEARTBEAT_MS).unref();

  /** The longest the thread went without running up to now, counting a gap that ended within the last beat. */
  stalledMs(): number {
    const now = Date.now();
    const current = now - this.last;
    const recent = now - this.gap.endedAt <= HEARTBEAT_MS ? this.gap.ms : 0;
    return Math.max(current > HEARTBEAT_MS ? current : 0, recent);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private beat(): void {
    const now = Date.now();
    const ms = now - this.last;
    if (ms > HEARTBEAT_MS * 2) this.gap = { ms, endedAt: now };
    this.last = now;
  }
}

export class ProbeListener {
  private constructor(
    private readonly server: http.Server,
    private readonly heartbeat: Heartbeat,
    readonly address: AddressInfo,
  ) {}

  static async start(options: ProbeListenerOptions): Promise<ProbeListener> {
    const heartbeat = new Heartbeat();
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://probe');
      const verbose = url.searchParams.has('verbose');
      const stalled = heartbeat.stalledMs();
      const busy = `[-]event-loop failed: the main thread has not run for ${(stalled / 1000).toFixed(1)} s`;
      if (url.pathname === '/healthz' || url.pathname === '/livez') {
        const endpoint = url.pathname.slice(1);
        if (stalled > options.stallMs) return reply(res, 500, 'text/plain', `[+]ping ok\n${busy}\n${endpoint} check failed\n`);
        return reply(res, 200, 'text/plain', verbose ? `[+]ping ok\n[+]event-loop ok\n${endpoint} check passed\n` : 'ok\n');
      }
      if (url.pathname === '/readyz' && stalled > options.busyMs) return reply(res, 503, 'text/plain', `${busy}\nreadyz check failed\n`);
      options.answer(url.pathname, verbose).then(
        (answer) => reply(res, answer.status, answer.contentType, answer.body),
        (error: unknown) => reply(res, 500, 'text/plain', `${(error as Error).message}\n`),
      );
    });
    const config: ListenerConfig = { port: options.port, bindAddress: options.bindAddress };
    try {
      return new ProbeListener(server, heartbeat, await listen(server, config));
    } catch (error) {
      heartbeat.stop();
      throw error;
    }
  }

  close(): Promise<void> {
    this.heartbeat.stop();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}

function reply(res: http.ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
