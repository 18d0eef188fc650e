/** Requests no API server sends: each gets a status-coded AdmissionReview (or 404/405) and the server keeps serving. */
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhooks, config: { webhook: { maxRequestBytes: 64 * 1024 } } });
});
afterAll(() => t.stop());

const valid = () => admissionReview({ object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } } });

/** A refusal, with the uid the body carried (or '' when it carried none). */
function expectErrored(res: { status: number; json: any }, code: number, message: RegExp, uid = '') {
  expect(res.status).toBe(code);
  expect(res.json).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: false, status: { code } } });
  expect(res.json.response.status.message).toMatch(message);
}

describe('malformed admission requests', () => {
  it('empty body → 400', async () => {
    expectErrored(await t.post('/validate-widget', ''), 400, /request body is empty/);
  });

  it('body over the configured limit that is no review → 413, by Content-Length and while streaming (a review: cannot-review.test.ts)', async () => {
    const big = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', padding: 'x'.repeat(70 * 1024) });
    expectErrored(await t.post('/validate-widget', big), 413, /exceeds the limit of 65536 bytes/);
    expectErrored(await t.post('/validate-widget', big, { chunked: true }), 413, /exceeds the limit/);
  });

  it('Content-Type other than application/json → 400; a charset parameter is fine', async () => {
    const review = valid();
    expectErrored(await t.post('/validate-widget', review, { headers: { 'Content-Type': 'text/plain' } }), 400, /Content-Type "text\/plain" not supported/, review.request!.uid);
    const ok = await t.post('/validate-widget', valid(), { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    expect(ok.json.response.allowed).toBe(true);
  });

  it('undecodable JSON → 400 saying so', async () => {
    expectErrored(await t.post('/validate-widget', '{"apiVersion": '), 400, /not valid JSON/);
    expectErrored(await t.post('/validate-widget', '[1,2]'), 400, /must be a JSON object/);
  });

  it('wrong apiVersion/kind, missing request or uid, bad operation → 400 naming the problem', async () => {
    expectErrored(await t.post('/validate-widget', { apiVersion: 'v1', kind: 'AdmissionReview' }), 400, /unsupported apiVersion "v1"/);
    expectErrored(await t.post('/validate-widget', { apiVersion: 'admission.k8s.io/v1', kind: 'Pod' }), 400, /unsupported kind "Pod"/);
    expectErrored(await t.post('/validate-widget', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), 400, /has no request/);
    const noUid = valid();
    noUid.request!.uid = '';
    expectErrored(await t.post('/validate-widget', noUid), 400, /has no uid/);
    const badOp = valid() as any;
    badOp.request.operation = 'PATCH';
    expectErrored(await t.post('/validate-widget', badOp), 400, /unknown operation "PATCH"/, badOp.request.uid);
  });

  it('answers in v1beta1 when the bad review said v1beta1', async () => {
    const res = await t.post('/validate-widget', { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview' });
    expect(res.json.apiVersion).toBe('admission.k8s.io/v1beta1');
  });

  it('routes other paths to the Express app (user routes added after start), 404 when none matches', async () => {
    t.server.app.get('/version', (_req, res) => void res.json({ version: 'test' }));
    expect((await t.post('/version', '', { method: 'GET' })).json).toEqual({ version: 'test' });
  });

  it('unknown path → 404, GET on a webhook path → 405 with Allow: POST', async () => {
    const missing = await t.post('/validate-nothing', valid());
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('no webhook is served at /validate-nothing');
    const get = await t.post('/validate-widget', '', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('counts rejected requests by code', async () => {
    const metrics = (await t.get('metrics', '/metrics')).text;
    expect(metrics).toMatch(/shaper_webhook_rejected_requests_total\{code="400"\} \d+/);
    expect(metrics).toMatch(/shaper_webhook_rejected_requests_total\{code="413"\} 2/);
  });

  it('survives garbage on the wire: plaintext to the TLS port, a handshake then a half request, an aborted upload', async () => {
    await new Promise<void>((resolve) => {
      const socket = net.connect(t.addresses.webhook.port, '127.0.0.1', () => socket.end('GET / HTTP/1.1\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    await new Promise<void>((resolve) => {
      const socket = tls.connect({ port: t.addresses.webhook.port, host: '127.0.0.1', ca: t.ca.cert, servername: 'localhost' }, () => {
        socket.write('POST /validate-widget HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion"');
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    const res = await t.post('/validate-widget', valid());
    expect(res.json.response.allowed).toBe(true);
  });
});

describe('slow and idle clients', () => {
  /** Resolves with whether the server closed the socket before `withinMs`. */
  const closedByServer = (socket: net.Socket, withinMs: number) =>
    new Promise<boolean>((resolve) => {
      const limit = setTimeout(() => resolve(false), withinMs);
      socket.on('close', () => {
        clearTimeout(limit);
        resolve(true);
      });
      socket.on('error', () => undefined);
    });

  it('closes connections that never complete a handshake, never send a request, or trickle their headers', async () => {
    const port = t.addresses.webhook.port;
    const tcp = net.connect(port, '127.0.0.1');
    const idleTls = tls.connect({ port, host: '127.0.0.1', ca: t.ca.cert, servername: 'localhost' });
    const trickle = tls.connect({ port, host: '127.0.0.1', ca: t.ca.cert, servername: 'localhost' }, () => trickle.write('POST /validate-widget HTTP/1.1\r\nHost: x\r\n'));
    const drip = setInterval(() => trickle.writable && trickle.write('X-Slow: y\r\n'), 500);
    // Each bound is 10 s (README, "Slow and idle clients"); three times that is no timing claim, only that the socket is given back.
    const closed = await Promise.all([tcp, idleTls, trickle].map((socket) => closedByServer(socket, 30_000)));
    clearInterval(drip);
    expect(closed).toEqual([true, true, true]);
    expect((await t.post('/validate-widget', valid())).json.response.allowed).toBe(true);
  }, 40_000);
});
