/**
 * Faults that belong to no request. A promise that rejects with nobody
 * listening (a handler started it and did not await it) is logged and
 * counted, and serving goes on. An exception thrown outside any request (a
 * timer or event callback) leaves the process in an unknown state: it is
 * logged, and the caller stops the server and exits non-zero.
 */
import type { Logger } from 'pino';
import { loggableThrown } from '../thrown.js';
import type { WebhookServer } from './webhook-server.js';

export interface ProcessFaultOptions {
  readonly server: WebhookServer;
  readonly log: Logger;
  /** Called on the first uncaught exception. */
  readonly onUncaughtException: () => void;
}

/** Installs the process handlers. */
export function containProcessFaults({ server, log, onUncaughtException }: ProcessFaultOptions): void {
  let crashed = false;
  const onRejection = (reason: unknown) => {
    server.metrics.unhandledRejections.inc();
    log.error({ err: loggableThrown(reason) }, 'unhandled promise rejection (a promise nobody awaited); serving on');
  };
  const onException = (error: unknown, origin: NodeJS.UncaughtExceptionOrigin) => {
    log.fatal({ err: loggableThrown(error), origin }, 'uncaught exception: finishing requests in flight, then exiting');
    if (crashed) return;
    crashed = true;
    onUncaughtException();
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
}
