/** Reads a request body up to a byte limit, without buffering past it. */
import type { IncomingMessage } from 'node:http';

/** A refused body keeps its first bytes (`head`), so that the refusal can still name the request's uid. */
export type BodyResult = { ok: true; body: string } | { ok: false; code: 400 | 413; message: string; head?: string };

const HEAD_BYTES = 4096;

export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => collectBody(req, limit, resolve));
}

/** readBody with a callback, called once: the admission hot path answers in the tick the body ends, with no promise per request. */
export function collectBody(req: IncomingMessage, limit: number, done: (result: BodyResult) => void): void {
  const declared = req.headers['content-length'];
  const declaredTooLarge = declared !== undefined && Number(declared) > limit;
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (result: BodyResult) => {
    if (finished) return;
    finished = true;
    // After 'end' no more data comes; before it (a body too large, an error), stop collecting.
    if (!req.readableEnded) {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
    }
    done(result);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (declaredTooLarge || size > limit) {
      // Stop collecting; Node discards the rest once the response is sent, so the client reads the 413 instead of a reset.
      chunks.push(chunk);
      finish(tooLarge(declaredTooLarge ? Number(declared) : size, limit, Buffer.concat(chunks).subarray(0, HEAD_BYTES).toString('utf8')));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    if (size === 0) finish({ ok: false, code: 400, message: 'request body is empty' });
    else finish({ ok: true, body: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8') });
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', (error) => finish({ ok: false, code: 400, message: `reading the request body failed: ${error.message}` }));
}

function tooLarge(size: number, limit: number, head: string): BodyResult {
  return { ok: false, code: 413, message: `request body of ${size} bytes or more exceeds the limit of ${limit} bytes`, head };
}
