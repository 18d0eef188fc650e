/**
 * The graceful stop, in order: unready at once; keep serving for
 * drainSeconds while the endpoints drop the pod, every reply saying
 * `Connection: close` (KeepAliveDrain); stop listening; let requests in
 * flight finish within timeoutSeconds, then cut them; release the rest.
 * After an uncaught exception the serving period is skipped.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import type { WebhookListener } from './webhook-listener.js';

export interface DrainOptions {
  readonly log: Logger;
  readonly shutdown: ServerConfig['shutdown'];
  readonly listener: WebhookListener;
  /** Everything but the webhook port (certificate watching, informers, health and metrics), once that port is closed. */
  readonly release: () => Promise<void>;
}

export class Drain {
  private stopped: Promise<void> | undefined;
  private endServing: (() => void) | undefined;

  constructor(private readonly options: DrainOptions) {}

  /** True from the first call of run(): readiness fails from then on. */
  get started(): boolean {
    return this.stopped !== undefined;
  }

  /** Starts the stop once; a later call with skipServing cuts the serving period short. */
  run(skipServing: boolean): Promise<void> {
    this.stopped ??= this.drainAndClose(skipServing);
    if (skipServing) this.endServing?.();
    return this.stopped;
  }

  private async drainAndClose(skipServing: boolean): Promise<void> {
    const { log, shutdown, listener } = this.options;
    listener.startDrain();
    if (skipServing) {
      log.info({ timeoutSeconds: shutdown.timeoutSeconds }, 'shutting down: unready, not accepting connections, finishing requests in flight');
    } else {
      log.info({ drainSeconds: shutdown.drainSeconds, timeoutSeconds: shutdown.timeoutSeconds }, 'shutting down: unready, draining');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, shutdown.drainSeconds * 1000).unref();
        this.endServing = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if ((await listener.close(shutdown.timeoutSeconds * 1000)) === 'timeout') {
      log.warn('requests still in flight at the shutdown timeout; closing their connections');
    }
    await this.options.release();
    log.info('stopped');
  }
}
