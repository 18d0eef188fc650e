/** readBody: the whole body up to the limit, or the complete refusal (with the first bytes, to name the uid). */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../../../runtime/server/body.js';

/** A request whose body arrives in `chunks`, then ends (or fails with `error`). */
function request(chunks: (string | Buffer)[], { contentLength, error }: { contentLength?: number; error?: Error } = {}): IncomingMessage {
  const stream = Object.assign(new PassThrough(), { headers: contentLength === undefined ? {} : { 'content-length': String(contentLength) } });
  const feed = async () => {
    for (const chunk of chunks) {
      stream.write(chunk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (error) stream.destroy(error);
    else stream.end();
  };
  setImmediate(() => void feed());
  return stream as unknown as IncomingMessage;
}

describe('readBody', () => {
  it('an empty body is a 400', async () => {
    expect(await readBody(request([]), 10)).toEqual({ ok: false, code: 400, message: 'request body is empty' });
  });

  it('one chunk, several chunks, a character split across chunks, exactly the limit', async () => {
    expect(await readBody(request(['{"a":1}']), 100)).toEqual({ ok: true, body: '{"a":1}' });
    expect(await readBody(request(['{"a"', ':1}']), 100)).toEqual({ ok: true, body: '{"a":1}' });
    const e = Buffer.from('"é"');
    expect(await readBody(request([e.subarray(0, 2), e.subarray(2)]), 100)).toEqual({ ok: true, body: '"é"' });
    expect(await readBody(request(['12345', '67890']), 10)).toEqual({ ok: true, body: '1234567890' });
  });

  it('over the limit while streaming: 413 at the chunk that crosses it, with the bytes so far', async () => {
    expect(await readBody(request(['12345', '67890', 'x']), 10)).toEqual({ ok: false, code: 413, message: 'request body of 11 bytes or more exceeds the limit of 10 bytes', head: '1234567890x' });
  });

  it('a declared Content-Length over the limit: 413 at the first chunk, naming the declared size', async () => {
    expect(await readBody(request(['12'], { contentLength: 50 }), 10)).toEqual({ ok: false, code: 413, message: 'request body of 50 bytes or more exceeds the limit of 10 bytes', head: '12' });
  });

  it('keeps at most 4096 bytes of a refused body', async () => {
    const result = await readBody(request(['a'.repeat(5000)]), 100);
    expect(result).toEqual({ ok: false, code: 413, message: 'request body of 5000 bytes or more exceeds the limit of 100 bytes', head: 'a'.repeat(4096) });
  });

  it('a stream error is a 400 naming it', async () => {
    expect(await readBody(request(['{'], { error: new Error('aborted') }), 100)).toEqual({ ok: false, code: 400, message: 'reading the request body failed: aborted' });
  });
});
