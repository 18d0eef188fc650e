/**
 * Newline-delimited JSON from a byte stream, decoded as it arrives: a value
 * may span any number of chunks, and a chunk may cut a UTF-8 character in two.
 */
import { StringDecoder } from 'node:string_decoder';

export class JsonLinesDecoder {
  private readonly text = new StringDecoder('utf8');
  /** The current line's text so far, in pieces: joined once its newline arrives, so a long line costs one copy. */
  private pending: string[] = [];

  /** The values whose lines this chunk completes. */
  push(chunk: Buffer): unknown[] {
    return this.lines(this.text.write(chunk));
  }

  /** The last value when the stream ended without a newline after it. */
  end(): unknown[] {
    const rest = this.pending.join('') + this.text.end();
    this.pending = [];
    return rest.trim() === '' ? [] : [parseLine(rest)];
  }

  private lines(text: string): unknown[] {
    const values: unknown[] = [];
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      this.pending.push(text.slice(start, newline));
      const line = this.pending.join('');
      this.pending = [];
      if (line.trim() !== '') values.push(parseLine(line));
      start = newline + 1;
    }
    if (start < text.length) this.pending.push(text.slice(start));
    return values;
  }
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new Error(`malformed line in the watch stream (${(error as Error).message}): ${line.length > 120 ? `${line.slice(0, 120)}…` : line}`, { cause: error });
  }
}
