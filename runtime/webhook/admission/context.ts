/** The `ctx` a handler receives: request facts, a request-scoped logger, the API client, a deadline signal, warnings. */
import type { Logger } from 'pino';
import { WebhookCacheReader } from '../../cache/webhook-cache-reader.js';
import type { ObjectSource } from '../../cache/object-source.js';
import type { AdmissionContext, AdmissionRequestInfo, CacheReader, KubeClient } from '../contract.js';
import type { ResolvedWebhook } from '../options/types.js';
import { lazyChildLogger } from './lazy-logger.js';
import type { AdmissionRequest } from './review.js';

export class RequestContext implements AdmissionContext {
  readonly warnings: string[] = [];
  /** Set on first use: most handlers add none. */
  auditAnnotations: Record<string, string> | undefined;
  private controller: AbortController | undefined;
  private requestLog: Logger | undefined;
  private info: AdmissionRequestInfo | undefined;
  private reader: CacheReader | undefined;

  constructor(
    readonly webhook: ResolvedWebhook,
    private readonly raw: AdmissionRequest,
    private readonly baseLog: Logger,
    readonly kube: KubeClient,
    private readonly objects: ObjectSource,
  ) {}

  /** The request as the API server sent it, objects included: for the server's own handlers (policies it enforces). */
  get review(): AdmissionRequest {
    return this.raw;
  }

  // Built on first use: most handlers never touch them, and the hot path should not pay for it.
  get request(): AdmissionRequestInfo {
    return (this.info ??= requestInfo(this.raw));
  }

  get log(): Logger {
    return (this.requestLog ??= lazyChildLogger(this.baseLog, () => ({
      webhook: this.webhook.path,
      uid: this.raw.uid,
      operation: this.raw.operation,
      resource: this.raw.resource.resource,
      namespace: this.raw.namespace,
      name: this.raw.name,
    })));
  }

  get cache(): CacheReader {
    return (this.reader ??= new WebhookCacheReader(this.objects, this.webhook, () => this.signal));
  }

  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** `message` as unknown: String() keeps a handler in plain JavaScript from adding a non-string. */
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }

  /** unknown: String() keeps a handler in plain JavaScript from adding a non-string. */
  auditAnnotation(key: unknown, value: unknown): void {
    (this.auditAnnotations ??= {})[String(key)] = String(value);
  }

  /** Called when the deadline passes: aborts the handler's API calls, if it made any. */
  abort(reason: Error): void {
    this.controller?.abort(reason);
  }
}

function requestInfo(raw: AdmissionRequest): AdmissionRequestInfo {
  return {
    uid: raw.uid,
    kind: raw.kind,
    resource: raw.resource,
    subResource: raw.subResource || undefined,
    requestKind: raw.requestKind,
    requestResource: raw.requestResource,
    requestSubResource: raw.requestSubResource || undefined,
    name: raw.name || undefined,
    namespace: raw.namespace || undefined,
    operation: raw.operation,
    userInfo: raw.userInfo,
    dryRun: raw.dryRun === true,
    options: raw.options ?? undefined,
  };
}
