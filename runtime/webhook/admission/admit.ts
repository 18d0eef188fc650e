/**
 * One admission decision: run the handler method the operation calls for,
 * within the webhook's deadline, and turn what happened into an
 * AdmissionResponse. No HTTP here: the server and the test helpers share it.
 */
import type { Logger } from 'pino';
import type { CustomDefaulter, CustomValidator, KubeClient, WebhookHandler } from '../contract.js';
import type { ObjectSource } from '../../cache/object-source.js';
import { AdmissionDenial, causeMessage } from '../errors.js';
import { goQuote } from '../../go-format.js';
import { describeThrown, loggableThrown } from '../../thrown.js';
import type { ResolvedWebhook } from '../options/types.js';
import { RequestContext } from './context.js';
import { defaulterObject } from './defaulter-object.js';
import { encodePatch, type PatchOperation } from './patch.js';
import { limitResponse } from './response-limits.js';
import { erroredResponse, type AdmissionRequest, type AdmissionResponse, type Status } from './review.js';

export type Outcome = 'allowed' | 'denied' | 'error' | 'timeout';

export interface AdmitResult {
  response: AdmissionResponse;
  outcome: Outcome;
  /** The operations `response.patch` encodes, for callers that read them (shaper-gen/testing) without decoding it again. */
  patch?: PatchOperation[];
}

export interface AdmitOptions {
  log: Logger;
  kube: KubeClient;
  /** What `ctx.cache` reads from. */
  objects: ObjectSource;
  /** How long the handler may run; by default the webhook's timeoutSeconds less a margin for the network. */
  deadlineMs?: number;
  /** Part of the deadline already spent before the handler could start (waiting for heap). */
  waitedMs?: number;
  /** The request's objects came from JSON.parse, so are plain JSON without checking (a test's may hold a Date). */
  decodedFromJson?: boolean;
}

/** The handler's time: `ms` as reported in timeout answers, `remainingMs` for the timer. */
interface Deadline {
  readonly ms: number;
  readonly remainingMs: number;
}

interface HandlerCall {
  readonly deadline: Deadline;
  readonly decodedFromJson: boolean;
}

class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`did not finish within ${ms} ms`);
  }
}

/** The handler's time budget: the API server gives up after timeoutSeconds, so answer a little before. */
export function handlerDeadlineMs(webhook: ResolvedWebhook): number {
  const total = webhook.timeoutSeconds * 1000;
  return total - Math.min(500, total * 0.2);
}

/**
 * This webhook could not decide: what the API server does when a call fails, said in time and with the
 * reason — allowed with the message as a warning under failurePolicy Ignore, else denied with `code`.
 */
export function failedCallResponse(webhook: ResolvedWebhook, uid: string, code: number, message: string, warnings: readonly string[] = []): AdmissionResponse {
  if (webhook.failurePolicy === 'Ignore') return { uid, allowed: true, warnings: [...warnings, `${message}; allowed because its failurePolicy is Ignore`] };
  return erroredResponse(code, message, uid);
}

/** No answer within the deadline: a failed call (504). */
export function timeoutResponse(webhook: ResolvedWebhook, uid: string, ms: number, warnings: readonly string[] = []): AdmissionResponse {
  return failedCallResponse(webhook, uid, 504, `webhook ${webhook.name} (${webhook.path}) did not answer within ${ms} ms`, warnings);
}

/**
 * The decision on one request. Synchronous when the handler is (no promise,
 * no timer, no microtask on the hot path); a promise when the handler returns one.
 */
export function admit(webhook: ResolvedWebhook, handler: WebhookHandler, request: AdmissionRequest, options: AdmitOptions): AdmitResult | Promise<AdmitResult> {
  const ctx = new RequestContext(webhook, request, options.log, options.kube, options.objects);
  const ms = options.deadlineMs ?? handlerDeadlineMs(webhook);
  const deadline = { ms, remainingMs: ms - (options.waitedMs ?? 0) };
  const decided = decide(webhook, handler, request, ctx, { deadline, decodedFromJson: options.decodedFromJson === true });
  return isThenable(decided) ? decided.then(limited) : limited(decided);
}

function limited(result: AdmitResult): AdmitResult {
  result.response = limitResponse(result.response);
  return result;
}

function decide(webhook: ResolvedWebhook, handler: WebhookHandler, request: AdmissionRequest, ctx: RequestContext, call: HandlerCall): AdmitResult | Promise<AdmitResult> {
  const failed = (error: unknown): AdmitResult => {
    try {
      return failure(error, webhook, request, ctx);
    } catch (unusable) {
      // What was thrown could not even be inspected (a revoked Proxy, a denial whose causes throw): a handler bug like any other.
      return handlerError(unusable, webhook, request, ctx);
    }
  };
  try {
    const decided = webhook.mutating
      ? runDefaulter(handler as CustomDefaulter, request, ctx, call)
      : then(settle(callValidator(handler as CustomValidator, request, ctx), ctx, call.deadline), (warnings): AdmitResult => ({
          outcome: 'allowed',
          response: withWarnings({ uid: request.uid, allowed: true }, ctx, warnings),
        }));
    return isThenable(decided) ? decided.then(undefined, failed) : decided;
  } catch (error) {
    return failed(error);
  }
}

function runDefaulter(handler: CustomDefaulter, request: AdmissionRequest, ctx: RequestContext, { deadline, decodedFromJson }: HandlerCall): AdmitResult | Promise<AdmitResult> {
  const allowed: AdmissionResponse = { uid: request.uid, allowed: true };
  // Like controller-runtime: defaulting applies to objects being written, never to DELETE or CONNECT.
  if (request.operation === 'DELETE' || request.operation === 'CONNECT') return { outcome: 'allowed', response: allowed };
  const original = request.object;
  if (!original) {
    return { outcome: 'denied', response: erroredResponse(400, `${request.operation} request for webhook ${ctx.webhook.path} carries no object`, request.uid) };
  }
  const working = defaulterObject(original, decodedFromJson);
  // `returned` as unknown: a handler in plain JavaScript can return anything.
  return then(settle(handler.default(working.object, ctx), ctx, deadline), (returned: unknown): AdmitResult => {
    if (returned !== undefined && (typeof returned !== 'object' || returned === null || Array.isArray(returned))) {
      throw new TypeError(`default() returned ${Array.isArray(returned) ? 'an array' : typeof returned}; return nothing or the object`);
    }
    const patch = working.patch(returned);
    const response = withWarnings(allowed, ctx, undefined);
    if (patch.length > 0) {
      response.patch = encodePatch(patch);
      response.patchType = 'JSONPatch';
    }
    return patch.length > 0 ? { outcome: 'allowed', response, patch } : { outcome: 'allowed', response };
  });
}

function callValidator(handler: CustomValidator, request: AdmissionRequest, ctx: RequestContext) {
  switch (request.operation) {
    case 'CREATE':
      return handler.validateCreate?.(request.object ?? {}, ctx);
    case 'UPDATE':
      return handler.validateUpdate?.(request.oldObject ?? {}, request.object ?? {}, ctx);
    case 'DELETE':
      return handler.validateDelete?.(request.oldObject ?? {}, ctx);
    case 'CONNECT':
      return handler.validateConnect?.(request.options ?? undefined, ctx);
  }
}

/** `next(value)` now when `value` is not a promise, else once it settles. */
function then<T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<R> {
  return isThenable(value) ? value.then(next) : next(value);
}

/** A handler's result as it is when it is not a promise; else the promise, bounded by the deadline. */
function settle<T>(value: T | Promise<T>, ctx: RequestContext, deadline: Deadline): T | Promise<T> {
  if (!isThenable(value)) return value;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new DeadlineExceeded(deadline.ms);
      ctx.abort(error);
      reject(error);
    }, deadline.remainingMs);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(error);
    };
    try {
      value.then((settled) => {
        clearTimeout(timer);
        resolve(settled);
      }, fail);
    } catch (error) {
      fail(error); // a thenable whose then() throws
    }
  });
}

export function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

function withWarnings(response: AdmissionResponse, ctx: RequestContext, returned: unknown): AdmissionResponse {
  const warnings = Array.isArray(returned) ? [...ctx.warnings, ...returned.map(String)] : ctx.warnings;
  if (warnings.length > 0) response.warnings = warnings;
  if (ctx.auditAnnotations) response.auditAnnotations = ctx.auditAnnotations;
  return response;
}

function failure(error: unknown, webhook: ResolvedWebhook, request: AdmissionRequest, ctx: RequestContext): AdmitResult {
  if (AdmissionDenial.isDenial(error)) {
    return { outcome: 'denied', response: withWarnings({ uid: request.uid, allowed: false, status: denialStatus(error, request) }, ctx, undefined) };
  }
  if (error instanceof DeadlineExceeded) {
    ctx.log.warn({ deadlineMs: error.ms, failurePolicy: webhook.failurePolicy }, 'handler timed out');
    return { outcome: 'timeout', response: timeoutResponse(webhook, request.uid, error.ms, ctx.warnings) };
  }
  return handlerError(error, webhook, request, ctx);
}

function handlerError(error: unknown, webhook: ResolvedWebhook, request: AdmissionRequest, ctx: RequestContext): AdmitResult {
  ctx.log.error({ err: loggableThrown(error) }, 'handler failed');
  const detail = describeThrown(error).message;
  return { outcome: 'error', response: erroredResponse(500, `internal error in webhook ${webhook.name} (${webhook.path}): ${detail}`, request.uid) };
}

/** metav1.Status for an explicit denial; Invalid gets apimachinery's NewInvalid message, details and causes. */
function denialStatus(denial: AdmissionDenial, request: AdmissionRequest): Status {
  const status: Status = { metadata: {}, status: 'Failure', code: denial.code, message: denial.message };
  if (denial.reason) status.reason = denial.reason;
  if (denial.details) return { ...status, details: structuredClone(denial.details) as Status['details'] };
  if (denial.causes.length === 0) return status;
  const name = request.name || request.object?.metadata?.name || request.oldObject?.metadata?.name || '';
  const { group, kind } = request.kind;
  status.message = `${group ? `${kind}.${group}` : kind} ${goQuote(name)} is invalid: ${denial.message}`;
  status.details = omitEmpty({
    name,
    group,
    kind,
    causes: denial.causes.map((cause) => omitEmpty({ reason: cause.type, message: causeMessage(cause), field: cause.field })),
  });
  return status;
}

/** Drops empty strings, as Go's `omitempty` does when the API server encodes the same struct. */
function omitEmpty<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== '')) as T;
}
