/**
 * The admission request path in process, step by step, for `serve` and the
 * hand-written server (request-path.ts runs it; compiled by
 * bench/tsconfig.build.json, since the handlers are decorated). No sockets
 * and no TLS: the body as the socket delivers it, through each step to the
 * bytes of the response. Each chain adds one step to the one before, so a
 * step's cost is the difference between two chains, measured on fresh input
 * every iteration. CPU time (process.cpuUsage), best of the rounds.
 *
 *   node dist/bench/admission/request-path-steps.js <iterations> <rounds>   (prints JSON)
 *
 * Under callgrind (request-path-instructions.ts), one whole chain instead, in
 * steps its controller counts: `warm` reviews, then "warm" on stdout and a
 * line awaited on stdin (the controller zeroes the counts), `counted`
 * reviews, then "done" and another line (the controller dumps them).
 *
 *   node dist/bench/admission/request-path-steps.js --count <path> serve|hand <warm> <counted>
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { createLogger } from '../../runtime/log.js';
import { ServerMetrics } from '../../runtime/server/metrics.js';
import { estimateReview } from '../../runtime/server/memory-budget.js';
import { registerWebhooks } from '../../runtime/server/registry.js';
import { admit, type AdmitResult } from '../../runtime/webhook/admission/admit.js';
import { decodeReview, responseCode, reviewOf, type AdmissionRequest, type ReviewApiVersion } from '../../runtime/webhook/admission/review.js';
import type { KubeClient } from '../../runtime/webhook/contract.js';
import type { ObjectSource } from '../../runtime/cache/object-source.js';
import { profileReview } from './bodies.js';
import { answer, type Review } from './hand-written-answer.js';
import { webhooks } from './handlers.js';

export interface StepCost {
  readonly step: string;
  /** CPU µs per review of the chain that ends with this step. */
  readonly chainUs: number;
  /** chainUs less the chain before it. */
  readonly stepUs: number;
}

export interface PathCosts {
  readonly path: string;
  readonly serve: StepCost[];
  readonly hand: StepCost[];
}

type Step = (state: State) => void;
interface State {
  buffer: Buffer;
  text?: string;
  cost?: number;
  apiVersion?: ReviewApiVersion;
  request?: AdmissionRequest;
  result?: AdmitResult;
  review?: Review;
  response?: unknown;
  started?: bigint;
}

const counting = process.argv[2] === '--count';
const [iterations = 10_000, rounds = 5] = counting ? [] : process.argv.slice(2).map(Number);
const PATHS = ['/mutate-profile', '/validate-profile', '/validate-allow-all'] as const;

const registered = registerWebhooks(webhooks);
const log = createLogger('warn', new Writable({ write: (_chunk, _encoding, done) => done() }));
const metrics = new ServerMetrics();
const unused = new Proxy({}, { get: () => () => Promise.reject(new Error('not in this benchmark')) });

function serveSteps(path: string): [string, Step][] {
  const { webhook, handler } = registered.get(path)!;
  const series = metrics.forWebhook(path);
  const options = { log, kube: unused as KubeClient, objects: unused as ObjectSource, deadlineMs: 4500, waitedMs: 0, decodedFromJson: true };
  return [
    ['body to text', (s) => ((s.started = process.hrtime.bigint()), (s.text = s.buffer.toString('utf8')))],
    ['heap estimate', (s) => void (s.cost = estimateReview(s.text!, webhook.mutating).cost)],
    [
      'parse and check the review',
      (s) => {
        const decoded = decodeReview(s.text!);
        if ('error' in decoded) throw new Error(decoded.error);
        ({ apiVersion: s.apiVersion, request: s.request } = decoded.review);
      },
    ],
    ['admit (handler, diff, patch)', (s) => void (s.result = admit(webhook, handler, s.request!, options) as AdmitResult)],
    ['response to text', (s) => void (s.response = Buffer.byteLength(JSON.stringify(reviewOf(s.apiVersion!, s.result!.response))))],
    [
      'metrics',
      (s) => {
        series.answered(s.request!.operation, s.result!.response.allowed, responseCode(s.result!.response), s.result!.outcome);
        series.latency.observe(Number(process.hrtime.bigint() - s.started!) / 1e9);
      },
    ],
  ];
}

function handSteps(path: string): [string, Step][] {
  return [
    ['body to text', (s) => void (s.text = s.buffer.toString('utf8'))],
    ['parse', (s) => void (s.review = JSON.parse(s.text!) as Review)],
    ['answer', (s) => void (s.response = answer(path, s.review!))],
    ['response to text', (s) => void (s.response = Buffer.byteLength(JSON.stringify({ apiVersion: s.review!.apiVersion, kind: 'AdmissionReview', response: s.response })))],
  ];
}

/** CPU µs per review of running `steps` in order on a fresh copy of the body, best of the rounds. */
function chainCost(steps: readonly Step[], body: Buffer): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    runChain(steps, body, iterations);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / iterations);
  }
  return best;
}

function costs(steps: readonly [string, Step][], body: Buffer): StepCost[] {
  const result: StepCost[] = [];
  for (let n = 1; n <= steps.length; n++) {
    const chainUs = chainCost(
      steps.slice(0, n).map(([, step]) => step),
      body,
    );
    result.push({ step: steps[n - 1]![0], chainUs, stepUs: chainUs - (result.at(-1)?.chainUs ?? 0) });
  }
  return result;
}

/** Runs `count` reviews through the whole chain. */
function runChain(steps: readonly Step[], body: Buffer, count: number): void {
  for (let i = 0; i < count; i++) {
    const state: State = { buffer: body };
    for (const step of steps) step(state);
  }
}

/** Says `word` on stdout and waits for the controller's next line on stdin. */
async function handOver(word: string, lines: AsyncIterator<string>): Promise<void> {
  process.stdout.write(`${word}\n`);
  if ((await lines.next()).done) throw new Error('the controller closed stdin');
}

const body = Buffer.from(JSON.stringify(profileReview()));
if (counting) {
  const [path, side, warm, counted] = process.argv.slice(3) as [string, 'serve' | 'hand', string, string];
  const steps = (side === 'serve' ? serveSteps(path) : handSteps(path)).map(([, step]) => step);
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  runChain(steps, body, Number(warm));
  await handOver('warm', lines);
  runChain(steps, body, Number(counted));
  await handOver('done', lines);
  process.exit(0);
} else {
  const results: PathCosts[] = PATHS.map((path) => ({ path, serve: costs(serveSteps(path), body), hand: costs(handSteps(path), body) }));
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
