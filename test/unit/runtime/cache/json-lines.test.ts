/** JsonLinesDecoder: newline-delimited JSON from chunks cut anywhere — inside a value, inside a UTF-8 character, between lines. */
import { describe, expect, it } from 'vitest';
import { JsonLinesDecoder } from '../../../../runtime/cache/json-lines.js';
import { seededRandom } from '../../../../support/seeded-random.js';

const EVENTS = [
  { type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '11' }, data: { greeting: 'grüße, 日本, 🚀' } } },
  { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '12' } } },
  { type: 'DELETED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '13' }, data: { long: 'x'.repeat(5000) } } },
];
const STREAM = Buffer.from(EVENTS.map((event) => `${JSON.stringify(event)}\n`).join(''));

function decode(chunks: Buffer[]): unknown[] {
  const decoder = new JsonLinesDecoder();
  return [...chunks.flatMap((chunk) => decoder.push(chunk)), ...decoder.end()];
}

describe('JsonLinesDecoder', () => {
  it('decodes the stream in one chunk', () => {
    expect(decode([STREAM])).toEqual(EVENTS);
  });

  it('decodes it cut in two at every byte, including inside multi-byte characters and right at newlines', () => {
    for (let cut = 0; cut <= STREAM.length; cut++) {
      expect(decode([STREAM.subarray(0, cut), STREAM.subarray(cut)])).toEqual(EVENTS);
    }
  });

  it('decodes it one byte at a time, and in random chunks', () => {
    expect(decode([...STREAM].map((byte) => Buffer.from([byte])))).toEqual(EVENTS);
    const random = seededRandom(7);
    for (let round = 0; round < 50; round++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < STREAM.length;) {
        const size = 1 + Math.floor(random() * 300);
        chunks.push(STREAM.subarray(at, at + size));
        at += size;
      }
      expect(decode(chunks)).toEqual(EVENTS);
    }
  });

  it('returns each value as soon as its newline arrives, nothing before', () => {
    const decoder = new JsonLinesDecoder();
    const first = STREAM.indexOf('\n');
    expect(decoder.push(STREAM.subarray(0, first))).toEqual([]);
    expect(decoder.push(STREAM.subarray(first, first + 1))).toEqual([EVENTS[0]]);
    expect(decoder.push(STREAM.subarray(first + 1))).toEqual(EVENTS.slice(1));
    expect(decoder.end()).toEqual([]);
  });

  it('skips blank lines, and gives a last value the stream ended without a newline', () => {
    expect(decode([Buffer.from('\n{"a":1}\n\n  \n{"b":2}')])).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('fails on a malformed line, quoting its start', () => {
    const decoder = new JsonLinesDecoder();
    expect(() => decoder.push(Buffer.from('{"type":"ADDED",\n'))).toThrow(/^malformed line in the watch stream \(.+\): \{"type":"ADDED",$/);
  });
});
