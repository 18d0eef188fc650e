import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { installReviewPath, parseHead, type ReviewRoute } from '../../../../runtime/server/review-connection.js';

const route: ReviewRoute = () => {};
const options = { route: (path: string) => (path === '/validate' ? route : undefined), maxBodyBytes: 100 };
const head = (lines: string[]) => lines.join('\r\n');

describe('the fast path for reviews', () => {
  it("takes the place of node:http's connection listener on a node:https server, leaving it one listener", () => {
    const server = https.createServer({});
    const nodeHttp = server.listeners('secureConnection')[0];
    const connections = installReviewPath(server, { ...options, headersTimeoutMs: 1, requestTimeoutMs: 1, keepAliveTimeoutMs: 1, onRequest: () => false });
    try {
      expect(connections).toBeDefined();
      expect(server.listeners('secureConnection')).toHaveLength(1);
      expect(server.listeners('secureConnection')[0]).not.toBe(nodeHttp);
    } finally {
      connections?.stop();
    }
  });

  it('changes nothing on a server whose connection handling it does not recognise', () => {
    const server = https.createServer({});
    server.on('secureConnection', () => {});
    const before = server.listeners('secureConnection');
    expect(installReviewPath(server, { ...options, headersTimeoutMs: 1, requestTimeoutMs: 1, keepAliveTimeoutMs: 1, onRequest: () => false })).toBeUndefined();
    expect(server.listeners('secureConnection')).toEqual(before);
  });

  it('reads the head of a plain review: its route, body size, content headers and whether to close', () => {
    const text = head(['POST /validate?timeout=10s HTTP/1.1', 'Host: a', 'Content-Length: 12', 'content-type:  application/json ', 'Content-Encoding: identity', 'Connection: keep-alive, close']);
    expect(parseHead(text, text.length + 4, options)).toEqual({ route, size: text.length + 4, bodySize: 12, contentType: 'application/json', contentEncoding: 'identity', close: true });
  });

  it.each([
    ['another method', ['GET /validate HTTP/1.1', 'Host: a', 'Content-Length: 2']],
    ['HTTP/1.0', ['POST /validate HTTP/1.0', 'Host: a', 'Content-Length: 2']],
    ['a path no webhook serves', ['POST /other HTTP/1.1', 'Host: a', 'Content-Length: 2']],
    ['an absolute-form target', ['POST http://a/validate HTTP/1.1', 'Host: a', 'Content-Length: 2']],
    ['no Host', ['POST /validate HTTP/1.1', 'Content-Length: 2']],
    ['two Hosts', ['POST /validate HTTP/1.1', 'Host: a', 'Host: b', 'Content-Length: 2']],
    ['no Content-Length', ['POST /validate HTTP/1.1', 'Host: a']],
    ['an empty body', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 0']],
    ['a body over the limit', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 101']],
    ['a Content-Length that is not digits', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 0x2']],
    ['two Content-Lengths', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 2', 'Content-Length: 2']],
    ['Transfer-Encoding', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 2', 'Transfer-Encoding: chunked']],
    ['Expect', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 2', 'Expect: 100-continue']],
    ['Upgrade', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 2', 'Connection: upgrade', 'Upgrade: h2c']],
    ['a folded header', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 2', 'X-A: b', ' c']],
    ['a space before the colon', ['POST /validate HTTP/1.1', 'Host : a', 'Content-Length: 2']],
    ['a control character in a value', ['POST /validate HTTP/1.1', 'Host: a\u0001', 'Content-Length: 2']],
    ['two Content-Types', ['POST /validate HTTP/1.1', 'Host: a', 'Content-Length: 2', 'Content-Type: application/json', 'Content-Type: text/plain']],
  ])('leaves %s to node:http', (_, lines) => {
    const text = head(lines);
    expect(parseHead(text, text.length + 4, options)).toBeUndefined();
  });
});
