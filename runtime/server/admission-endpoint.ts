/**
 * The HTTP side of one registered webhook: method, content type and body
 * checks, decoding, the decision, the response, metrics and the log line.
 * Works on raw node:http objects so that the admission hot path does not pay
 * for Express routing (`npm run bench -- admission-express` measures the difference).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { admit, failedCallResponse, handlerDeadlineMs, isThenable, timeoutResponse, type AdmitResult } from '../webhook/admission/admit.js';
import { decodeReview, erroredResponse, identifyReview, responseCode, reviewOf, type AdmissionRequest, type ReviewApiVersion, type ReviewIdentity } from '../webhook/admission/review.js';
import type { KubeClient } from '../webhook/contract.js';
import type { ObjectSource } from '../cache/object-source.js';
import { readBody } from './body.js';
import { estimateReview, type MemoryBudget } from './memory-budget.js';
import type { ServerMetrics } from './metrics.js';
import type { RegisteredWebhook } from './registry.js';
import { unsupportedHeaders } from './request-headers.js';
import { writeResponse } from './write-response.js';

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

export function admissionEndpoint(entry: RegisteredWebhook, deps: EndpointDeps): RawHandler {
  const { webhook, handler } = entry;
  const series = deps.metrics.forWebhook(webhook.path);
  const log = deps.log.child({ webhook: webhook.path });

  // A body no API server sends (wrong method, type or encoding, not a review): HTTP status = code, so that any client sees the failure.
  const reject = (res: ServerResponse, code: number, message: string, { apiVersion = 'admission.k8s.io/v1', uid = '' }: ReviewIdentity = {}) => {
    deps.metrics.countRejected(code);
    log.info({ code, uid }, message);
    send(res, code, reviewOf(apiVersion, erroredResponse(code, message, uid)));
  };
  // A review the API server can send that this server will not process (too large, too deep): HTTP 200 under the
  // webhook's failurePolicy, as the API server would treat a failed call, but with the reason (docs/adr/0001-http-200-for-refusable-reviews.md).
  const cannotReview = (res: ServerResponse, code: number, reason: string, identity: ReviewIdentity): void => {
    const { apiVersion, uid } = identity;
    if (!apiVersion || !uid) return reject(res, code, reason, identity);
    deps.metrics.countRejected(code);
    log.info({ code, uid }, reason);
    send(res, 200, reviewOf(apiVersion, failedCallResponse(webhook, uid, code, `webhook ${webhook.name} (${webhook.path}) cannot review this request: ${reason}`)));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, started: bigint) => {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      reject(res, 405, `method ${req.method} not allowed; admission webhooks take POST`);
      return;
    }
    // The body first: every refusal below names the request's uid, as the API server requires of any answer.
    const read = await readBody(req, deps.maxRequestBytes);
    const unsupported = unsupportedHeaders(req, 'admission reviews');
    if (!read.ok) {
      const identity = identifyReview(read.head ?? '');
      if (read.code === 413 && !unsupported) {
        cannotReview(res, 413, read.message, identity);
        return;
      }
      reject(res, read.code, read.message, identity);
      return;
    }
    if (unsupported) {
      reject(res, unsupported.code, unsupported.message, identifyReview(read.body));
      return;
    }
    const { cost, depthChecked } = estimateReview(read.body, webhook.mutating);
    if (cost > deps.memory.capacity) {
      const work = webhook.mutating ? 'decode, default and diff' : 'decode and validate';
      cannotReview(
        res,
        413,
        `this review needs about ${mib(cost)} MiB of heap to ${work}, more than the ${mib(deps.memory.capacity)} MiB the server keeps for reviews: raise the container's memory limit (chart: resources.limits.memory) or write smaller objects`,
        identifyReview(read.body),
      );
      return;
    }
    const deadlineMs = handlerDeadlineMs(webhook);
    const waitStarted = Date.now();
    const release = deps.memory.tryAcquire(cost) ?? (await deps.memory.acquire(cost, deadlineMs));
    if (!release) {
      const { apiVersion = 'admission.k8s.io/v1', uid = '' } = identifyReview(read.body);
      log.warn({ uid, cost, inUse: deps.memory.bytesInUse }, 'no heap for this review within its deadline');
      deps.metrics.countRejected(504);
      send(res, 200, reviewOf(apiVersion, timeoutResponse(webhook, uid, deadlineMs)));
      return;
    }
    let result: AdmitResult;
    let apiVersion: ReviewApiVersion;
    let request: AdmissionRequest;
    try {
      const decoded = decodeReview(read.body, depthChecked);
      if ('error' in decoded) {
        (decoded.exceedsLimit ? cannotReview : reject)(res, 400, decoded.error, decoded);
        return;
      }
      ({ apiVersion, request } = decoded.review);
      const admitted = admit(webhook, handler, request, { log: deps.log, kube: deps.kube, objects: deps.objects, deadlineMs, waitedMs: Date.now() - waitStarted, decodedFromJson: true });
      result = isThenable(admitted) ? await admitted : admitted;
      send(res, 200, reviewOf(apiVersion, result.response));
    } finally {
      release();
    }
    recordAnswer(request, result, started);
  };
  // What an answered review leaves behind: its metrics and its log line.
  const recordAnswer = (request: AdmissionRequest, result: AdmitResult, started: bigint): void => {
    const code = responseCode(result.response);
    deps.metrics.countRequest(webhook.path, request.operation, result.response.allowed, code, result.outcome);
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
  const failed = (error: unknown, res: ServerResponse) => {
    // Only a bug in this file gets here; the connection still gets an answer.
    log.error({ err: error }, 'admission endpoint failed');
    if (!res.headersSent) send(res, 500, reviewOf('admission.k8s.io/v1', erroredResponse(500, 'internal server error')));
    else res.destroy();
    finished();
  };
  return (req, res) => {
    series.inFlight.value++;
    handle(req, res, process.hrtime.bigint()).then(finished, (error: unknown) => failed(error, res));
  };
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  writeResponse(res, status, 'application/json', JSON.stringify(body));
}
