/**
 * The webhook port's fast path (runtime/server/review-connection.ts), over
 * real TLS connections with the bytes written by hand: a plain review is
 * answered with the bytes node:http writes for the same answer; everything
 * else on the connection, from its first unusual byte on, is node:http's,
 * answered as node:http answers it, and later reviews on that connection
 * still are.
 */
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { ProfileConversion } from '../../../sample/conversion/profile-conversion.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhooks, conversions: [ProfileConversion], config: { webhook: { maxRequestBytes: 64 * 1024 } } });
});
afterAll(() => t.stop());

const widget = (size: number) => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size } });
const checked = ['checked by the widget validator'];
const reviewBody = (size: number) => JSON.stringify(admissionReview({ uid: `uid-${size}`, object: widget(size) }));
const conversionBody = (desiredAPIVersion: string) =>
  JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: {
      uid: 'c-1',
      desiredAPIVersion,
      objects: [{ apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'gold', namespace: 'a' }, spec: { tier: 'gold', priority: 900 } }],
    },
  });

/** A plain review request, as the API server writes one. */
function plain(urlPath: string, body: string, extraHeaders = ''): string {
  return `POST ${urlPath}?timeout=10s HTTP/1.1\r\nHost: webhook.svc:443\r\nUser-Agent: kube-apiserver-admission\r\nContent-Length: ${Buffer.byteLength(body)}\r\nAccept: application/json, */*\r\nContent-Type: application/json\r\n${extraHeaders}Accept-Encoding: gzip\r\n\r\n${body}`;
}

/** The same request with a chunked body: a request the fast path leaves to node:http. */
function chunked(urlPath: string, body: string): string {
  return `POST ${urlPath} HTTP/1.1\r\nHost: webhook.svc:443\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
}

interface Response {
  head: string;
  body: string;
}

/** One TLS connection: writes bytes as given, reads responses (each whole, by its Content-Length). */
class RawConnection {
  private received = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  closed = false;
  private readonly socket: tls.TLSSocket;

  private constructor(socket: tls.TLSSocket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on('error', () => {});
  }

  static open(port: number, ca: string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca }, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: string): void {
    this.socket.write(bytes);
  }

  /** The next response; rejects if the connection closes first. */
  async response(): Promise<Response> {
    for (;;) {
      const headEnd = this.received.indexOf('\r\n\r\n');
      if (headEnd !== -1) {
        const head = this.received.toString('latin1', 0, headEnd);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (this.received.length >= headEnd + 4 + length) {
          const body = this.received.toString('utf8', headEnd + 4, headEnd + 4 + length);
          this.received = this.received.subarray(headEnd + 4 + length);
          return { head, body };
        }
      }
      if (this.closed) throw new Error(`connection closed with ${JSON.stringify(this.received.toString())} unread`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  async closedByServer(): Promise<boolean> {
    while (!this.closed) await new Promise<void>((resolve) => (this.waiting = resolve));
    return true;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** A response's head without its Date, which changes each second. */
const withoutDate = (response: Response) => ({ head: response.head.replace(/\r\nDate: [^\r]+/, '\r\nDate: <date>'), body: response.body });

const open = () => RawConnection.open(t.addresses.webhook.port, t.ca.cert);

describe('the fast path for reviews', () => {
  it('answers a plain review with the bytes node:http writes for it: allowed, denied, patched, converted, conversion failed', async () => {
    const fast = await open();
    const node = await open();
    try {
      for (const [urlPath, body] of [
        ['/validate-widget', reviewBody(1)],
        ['/validate-widget', reviewBody(11)],
        ['/mutate-widget', reviewBody(2)],
        ['/convert', conversionBody('shaper.io/v1beta1')],
        ['/convert', conversionBody('example.io/v9')],
      ] as const) {
        fast.write(plain(urlPath, body));
        node.write(chunked(urlPath, body));
        const [byFastPath, byNodeHttp] = [await fast.response(), await node.response()];
        expect(withoutDate(byFastPath)).toEqual(withoutDate(byNodeHttp));
        expect(byFastPath.head).toMatch(/^HTTP\/1\.1 200 OK\r\nContent-Type: application\/json\r\nContent-Length: \d+\r\nDate: .+ GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=120$/);
      }
      expect(JSON.parse((await (fast.write(plain('/mutate-widget', reviewBody(2))), fast.response())).body)).toEqual(
        JSON.parse((await (node.write(chunked('/mutate-widget', reviewBody(2))), node.response())).body),
      );
    } finally {
      fast.destroy();
      node.destroy();
    }
  });

  it('answers reviews sent together in one write, and one sent in pieces, in order', async () => {
    const connection = await open();
    try {
      connection.write(plain('/validate-widget', reviewBody(3)) + plain('/validate-widget', reviewBody(11)));
      const first = JSON.parse((await connection.response()).body);
      const second = JSON.parse((await connection.response()).body);
      expect([first.response.uid, first.response.allowed, second.response.uid, second.response.allowed]).toEqual(['uid-3', true, 'uid-11', false]);

      const pieces = plain('/validate-widget', reviewBody(4));
      for (let at = 0; at < pieces.length; at += 37) {
        connection.write(pieces.slice(at, at + 37));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      expect(JSON.parse((await connection.response()).body).response).toEqual({ uid: 'uid-4', allowed: true, warnings: checked });
    } finally {
      connection.destroy();
    }
  });

  it('hands the rest of a connection to node:http at the first request it does not recognise, which answers it and every one after', async () => {
    const connection = await open();
    try {
      connection.write(plain('/validate-widget', reviewBody(5)));
      expect(JSON.parse((await connection.response()).body).response).toEqual({ uid: 'uid-5', allowed: true, warnings: checked });
      connection.write(`GET /validate-widget HTTP/1.1\r\nHost: webhook.svc\r\n\r\n`);
      const refused = await connection.response();
      expect(refused.head).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\nAllow: POST\r\n/);
      expect(JSON.parse(refused.body).response.status.message).toBe('method GET not allowed; admission webhooks take POST');
      connection.write(plain('/validate-widget', reviewBody(6)));
      expect(JSON.parse((await connection.response()).body).response).toEqual({ uid: 'uid-6', allowed: true, warnings: checked });
    } finally {
      connection.destroy();
    }
  });

  it('leaves heads it does not accept to node:http, which refuses them as it always has', async () => {
    const cases = [
      // A header line without a colon.
      `POST /validate-widget HTTP/1.1\r\nHost: a\r\nbroken header\r\nContent-Length: 2\r\n\r\n{}`,
      // Two Content-Lengths that disagree.
      `POST /validate-widget HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      // A Content-Length with a sign.
      `POST /validate-widget HTTP/1.1\r\nHost: a\r\nContent-Length: +2\r\n\r\n{}`,
    ];
    for (const request of cases) {
      const connection = await open();
      try {
        connection.write(request);
        expect(await connection.response()).toEqual({ head: 'HTTP/1.1 400 Bad Request\r\nConnection: close', body: '' });
        expect(await connection.closedByServer()).toBe(true);
      } finally {
        connection.destroy();
      }
    }
  });

  it('times a review from its first byte, on either path: a body sent 300 ms after its head is counted above 0.25 s', async () => {
    /** The histogram's series for the path; before its first observation it has none, after it it must. */
    const buckets = async (observed: boolean) => {
      const { text } = await t.get('metrics', '/metrics');
      const value = (series: string) => {
        const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
        if (observed && line === undefined) throw new Error(`/metrics has no ${series}`);
        return Number(line?.slice(series.length + 1) ?? 0);
      };
      return {
        under250ms: value('shaper_webhook_request_duration_seconds_bucket{le="0.25",webhook="/validate-widget"}'),
        counted: value('shaper_webhook_request_duration_seconds_count{webhook="/validate-widget"}'),
      };
    };
    const body = reviewBody(3);
    const [head, rest] = [plain('/validate-widget', body).slice(0, -body.length), body];
    const chunkedRequest = chunked('/validate-widget', body);
    const chunkedHeadEnd = chunkedRequest.indexOf('\r\n\r\n') + 4;
    for (const [first, second] of [
      [head, rest],
      [chunkedRequest.slice(0, chunkedHeadEnd), chunkedRequest.slice(chunkedHeadEnd)],
    ]) {
      const before = await buckets(false);
      const connection = await open();
      try {
        connection.write(first!);
        await new Promise((resolve) => setTimeout(resolve, 300));
        connection.write(second!);
        expect((await connection.response()).head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      } finally {
        connection.destroy();
      }
      const after = await buckets(true);
      expect({ under250ms: after.under250ms - before.under250ms, counted: after.counted - before.counted }).toEqual({ under250ms: 0, counted: 1 });
    }
  });

  it('closes the connection after its reply when the client asks to', async () => {
    const connection = await open();
    try {
      connection.write(plain('/validate-widget', reviewBody(7), 'Connection: close\r\n'));
      const response = await connection.response();
      expect(response.head).toMatch(/\r\nConnection: close$/);
      expect(JSON.parse(response.body).response).toEqual({ uid: 'uid-7', allowed: true, warnings: checked });
      expect(await connection.closedByServer()).toBe(true);
    } finally {
      connection.destroy();
    }
  });
});
