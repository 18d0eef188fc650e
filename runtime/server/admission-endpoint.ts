/**
 * The HTTP side of one registered webhook: method, content type and body
 * checks, decoding, the decision, the response, metrics and the log line.
 * Two entries: the fast path's (review-connection.ts), which has read a plain
 * review request whole, and node:http's, for every other request to the path.
 * Neither goes through Express routing (`npm run bench -- admission-express`
 * measures the difference).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { admit, failedCallResponse, handlerDeadlineMs, isThenable, timeoutResponse, type AdmitResult } from '../webhook/admission/admit.js';
import { decodeReview, erroredResponse, identifyReview, responseCode, reviewOf, type AdmissionRequest, type ReviewIdentity } from '../webhook/admission/review.js';
import type { KubeClient } from '../webhook/contract.js';
import type { ObjectSource } from '../cache/object-source.js';
import { collectBody, type BodyResult } from './body.js';
import { estimateReview, type MemoryBudget } from './memory-budget.js';
import type { ServerMetrics } from './metrics.js';
import type { RegisteredWebhook } from './registry.js';
import { headersOf, unsupportedHeaders, type RequestHeaders } from './request-headers.js';
import type { Reply, ReviewRoute } from './review-connection.js';
import { nodeReply } from './write-response.js';

export interface EndpointDeps {
  readonly log: Logger;
  readonly kube: KubeClient;
  /** What `ctx.cache` reads from. */
  readonly objects: ObjectSource;
  readonly metrics: ServerMetrics;
  readonly maxRequestBytes: number;
  /** Heap for reviews in flight, shared by every webhook of the server. */
  readonly memory: MemoryBudget;
}

export type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A review path's two entries. */
export interface Endpoint {
  /** For requests node:http reads. */
  readonly node: RawHandler;
  /** For plain review requests the fast path has read. */
  readonly review: ReviewRoute;
}

export function admissionEndpoint(entry: RegisteredWebhook, deps: EndpointDeps): Endpoint {
  const { webhook, handler } = entry;
  const series = deps.metrics.forWebhook(webhook.path);
  // The webhook's own: the same for every request.
  const deadlineMs = handlerDeadlineMs(webhook);
  const log = deps.log.child({ webhook: webhook.path });

  // A body no API server sends (wrong method, type or encoding, not a review): HTTP status = code, so that any client sees the failure.
  const reject = (reply: Reply, code: number, message: string, { apiVersion = 'admission.k8s.io/v1', uid = '' }: ReviewIdentity = {}) => {
    deps.metrics.countRejected(code);
    log.info({ code, uid }, message);
    send(reply, code, reviewOf(apiVersion, erroredResponse(code, message, uid)));
  };
  // A review the API server can send that this server will not process (too large, too deep): HTTP 200 under the
  // webhook's failurePolicy, as the API server would treat a failed call, but with the reason (docs/adr/0001-http-200-for-refusable-reviews.md).
  const cannotReview = (reply: Reply, code: number, reason: string, identity: ReviewIdentity): void => {
    const { apiVersion, uid } = identity;
    if (!apiVersion || !uid) return reject(reply, code, reason, identity);
    deps.metrics.countRejected(code);
    log.info({ code, uid }, reason);
    send(reply, 200, reviewOf(apiVersion, failedCallResponse(webhook, uid, code, `webhook ${webhook.name} (${webhook.path}) cannot review this request: ${reason}`)));
  };

  // Synchronous from the body's end to the response when the handler is (no promise, no timer, no microtask per
  // request); a promise only when the heap is short or the handler returns one.
  const handle = (headers: RequestHeaders, reply: Reply, read: BodyResult, started: bigint): void | Promise<void> => {
    const unsupported = unsupportedHeaders(headers, 'admission reviews');
    if (!read.ok) {
      const identity = identifyReview(read.head ?? '');
      if (read.code === 413 && !unsupported) {
        cannotReview(reply, 413, read.message, identity);
        return;
      }
      reject(reply, read.code, read.message, identity);
      return;
    }
    if (unsupported) {
      reject(reply, unsupported.code, unsupported.message, identifyReview(read.body));
      return;
    }
    const { cost, depthChecked } = estimateReview(read.body, webhook.mutating);
    if (cost > deps.memory.capacity) {
      const work = webhook.mutating ? 'decode, default and diff' : 'decode and validate';
      cannotReview(
        reply,
        413,
        `this review needs about ${mib(cost)} MiB of heap to ${work}, more than the ${mib(deps.memory.capacity)} MiB the server keeps for reviews: raise the container's memory limit (chart: resources.limits.memory) or write smaller objects`,
        identifyReview(read.body),
      );
      return;
    }
    const release = deps.memory.tryAcquire(cost);
    const text = { body: read.body, depthChecked };
    if (release) return review(reply, text, release, 0, started);
    return waitForHeap(reply, text, cost, started);
  };
  const waitForHeap = async (reply: Reply, text: ReviewText, cost: number, started: bigint): Promise<void> => {
    const waitStarted = Date.now();
    const release = await deps.memory.acquire(cost, deadlineMs);
    if (!release) {
      const { apiVersion = 'admission.k8s.io/v1', uid = '' } = identifyReview(text.body);
      log.warn({ uid, cost, inUse: deps.memory.bytesInUse }, 'no heap for this review within its deadline');
      deps.metrics.countRejected(504);
      send(reply, 200, reviewOf(apiVersion, timeoutResponse(webhook, uid, deadlineMs)));
      return;
    }
    return review(reply, text, release, Date.now() - waitStarted, started);
  };
  // Decodes, admits and answers; `release` gives back the review's heap once the response is written.
  const review = (reply: Reply, { body, depthChecked }: ReviewText, release: () => void, waitedMs: number, started: bigint): void | Promise<void> => {
    let pending: Promise<void> | undefined;
    try {
      const decoded = decodeReview(body, depthChecked);
      if ('error' in decoded) {
        (decoded.exceedsLimit ? cannotReview : reject)(reply, 400, decoded.error, decoded);
        return;
      }
      const { apiVersion, request } = decoded.review;
      const admitted = admit(webhook, handler, request, { log: deps.log, kube: deps.kube, objects: deps.objects, deadlineMs, waitedMs, decodedFromJson: true });
      if (!isThenable(admitted)) {
        send(reply, 200, reviewOf(apiVersion, admitted.response));
        recordAnswer(request, admitted, started);
        return; // `finally` gives the heap back
      }
      pending = admitted.then(
        (result) => {
          try {
            send(reply, 200, reviewOf(apiVersion, result.response));
          } finally {
            release();
          }
          recordAnswer(request, result, started);
        },
        (error: unknown) => {
          release();
          throw error;
        },
      );
      return pending;
    } finally {
      if (!pending) release();
    }
  };
  // What an answered review leaves behind: its metrics and its log line.
  const recordAnswer = (request: AdmissionRequest, result: AdmitResult, started: bigint): void => {
    const code = responseCode(result.response);
    series.answered(request.operation, result.response.allowed, code, result.outcome);
    series.latency.observe(Number(process.hrtime.bigint() - started) / 1e9);
    if (!result.response.allowed) {
      log.info(
        { uid: request.uid, operation: request.operation, namespace: request.namespace, name: request.name, code, reason: result.response.status?.reason },
        result.response.status?.message ?? 'denied',
      );
    } else if (log.isLevelEnabled('debug')) {
      log.debug({ uid: request.uid, operation: request.operation, namespace: request.namespace, name: request.name, patched: result.response.patch !== undefined }, 'allowed');
    }
  };

  const finished = () => {
    series.inFlight.value--;
  };
  const failed = (error: unknown, reply: Reply) => {
    // Only a bug in this file gets here; the connection still gets an answer.
    log.error({ err: error }, 'admission endpoint failed');
    if (!reply.sent) send(reply, 500, reviewOf('admission.k8s.io/v1', erroredResponse(500, 'internal server error')));
    else reply.abort();
    finished();
  };
  const afterBody = (headers: RequestHeaders, reply: Reply, read: BodyResult, started: bigint): void => {
    let handled: void | Promise<void>;
    try {
      handled = handle(headers, reply, read, started);
    } catch (error) {
      failed(error, reply);
      return;
    }
    if (handled) handled.then(finished, (error: unknown) => failed(error, reply));
    else finished();
  };
  return {
    node(req, res) {
      series.inFlight.value++;
      const started = process.hrtime.bigint();
      const reply = nodeReply(res);
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        reject(reply, 405, `method ${req.method} not allowed; admission webhooks take POST`);
        finished();
        return;
      }
      // The body first: every refusal names the request's uid, as the API server requires of any answer.
      collectBody(req, deps.maxRequestBytes, (read) => afterBody(headersOf(req), reply, read, started));
    },
    review(request, reply) {
      series.inFlight.value++;
      afterBody(request, reply, { ok: true, body: request.body }, request.started);
    },
  };
}

/** A review's body, and whether the heap estimate's pass already checked its nesting depth. */
interface ReviewText {
  readonly body: string;
  readonly depthChecked: boolean;
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}

function send(reply: Reply, status: number, body: unknown): void {
  reply.send(status, JSON.stringify(body));
}
