/**
 * The HTTP side of a conversion path: body checks, the heap budget, decoding
 * the ConversionReview, converting every object through the converters served
 * at this path, the answer, metrics and the log line. The API server reads a
 * conversion webhook's failure from the review's `result`, so every review it
 * could have sent is answered with HTTP 200, Failure included.
 */
import type { Logger } from 'pino';
import { answerConversionReview, type ConversionStep } from '../conversion/answer.js';
import type { ConversionsByKind } from '../conversion/convert.js';
import { failedReview, identifyConversionReview, type ConversionReview, type ReviewIdentity } from '../conversion/review.js';
import { loggableThrown } from '../thrown.js';
import { readBody, type BodyResult } from './body.js';
import { estimateReview, type MemoryBudget } from './memory-budget.js';
import type { ServerMetrics } from './metrics.js';
import type { Endpoint } from './admission-endpoint.js';
import { headersOf, unsupportedHeaders, type RequestHeaders } from './request-headers.js';
import type { Reply } from './review-connection.js';
import { nodeReply } from './write-response.js';

export interface ConversionEndpointDeps {
  readonly log: Logger;
  readonly metrics: ServerMetrics;
  readonly maxRequestBytes: number;
  readonly memory: MemoryBudget;
}

/** How long a review may wait for heap before it is refused: the API server's default webhook timeout. */
const HEAP_WAIT_MS = 10_000;

export function conversionEndpoint(path: string, conversions: ConversionsByKind, deps: ConversionEndpointDeps): Endpoint {
  const series = deps.metrics.forConversion(path);
  const log = deps.log.child({ conversion: path });

  const fail = (reply: Reply, identity: ReviewIdentity, message: string, started: bigint, level: 'info' | 'warn' = 'info') => {
    log[level]({ uid: identity.uid }, message);
    answer(reply, failedReview(identity, message), 'Failure', [], started);
  };
  const answer = (reply: Reply, review: ConversionReview, result: 'Success' | 'Failure', steps: readonly ConversionStep[], started: bigint) => {
    reply.send(200, JSON.stringify(review));
    series.answered(result, steps);
    series.latency.observe(Number(process.hrtime.bigint() - started) / 1e9);
  };

  const handle = async (headers: RequestHeaders, reply: Reply, read: BodyResult, started: bigint) => {
    if (!read.ok) {
      deps.metrics.countRejected(read.code);
      fail(reply, identifyConversionReview(read.head ?? ''), read.message, started);
      return;
    }
    const unsupported = unsupportedHeaders(headers, 'conversion reviews');
    if (unsupported) {
      deps.metrics.countRejected(unsupported.code);
      fail(reply, identifyConversionReview(read.body), unsupported.message, started);
      return;
    }
    // Decoding and converting hold the review and its converted copy: charged as a mutating review.
    const { cost } = estimateReview(read.body, true);
    const release = cost > deps.memory.capacity ? undefined : (deps.memory.tryAcquire(cost) ?? (await deps.memory.acquire(cost, HEAP_WAIT_MS)));
    if (!release) {
      deps.metrics.countRejected(413);
      fail(
        reply,
        identifyConversionReview(read.body),
        `this review needs about ${mib(cost)} MiB of heap to convert, more than the server can give it now (${mib(deps.memory.capacity)} MiB for reviews): raise the container's memory limit (chart: resources.limits.memory)`,
        started,
        'warn',
      );
      return;
    }
    try {
      const outcome = answerConversionReview(conversions, read.body);
      const { failure, uid } = outcome;
      if (failure?.malformed) deps.metrics.countRejected(400);
      // What a converter threw goes to the log with its stack; the API server gets the one-line message.
      if (failure?.thrown !== undefined) log.error({ uid, err: loggableThrown(failure.thrown) }, failure.message);
      else if (failure) log.info({ uid }, failure.message);
      else if (log.isLevelEnabled('debug')) log.debug({ uid, objects: outcome.steps.length }, 'converted');
      answer(reply, outcome.review, failure ? 'Failure' : 'Success', outcome.steps, started);
    } finally {
      release();
    }
  };

  // Only a bug in this file gets here (a converter's throw is a Failure above); the connection still gets an answer.
  const failed = (reply: Reply) => (error: unknown) => {
    log.error({ err: error }, 'conversion endpoint failed');
    if (!reply.sent) reply.send(500, JSON.stringify(failedReview(identifyConversionReview(''), 'internal server error')));
    else reply.abort();
  };
  return {
    node(req, res) {
      const started = process.hrtime.bigint();
      const reply = nodeReply(res);
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        deps.metrics.countRejected(405);
        reply.send(405, JSON.stringify(failedReview(identifyConversionReview(''), `method ${req.method} not allowed; conversion webhooks take POST`)));
        return;
      }
      readBody(req, deps.maxRequestBytes)
        .then((read) => handle(headersOf(req), reply, read, started))
        .catch(failed(reply));
    },
    review(request, reply) {
      handle(request, reply, { ok: true, body: request.body }, request.started).catch(failed(reply));
    },
  };
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}
