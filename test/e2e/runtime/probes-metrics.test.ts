/** Health, readiness (with the expected-path guard) and Prometheus metrics on their plain-HTTP ports; drain on shutdown. */
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const review = () => admissionReview({ object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } } });

describe('probes', () => {
  it('/healthz and /readyz answer ok; ?verbose lists every check', async () => {
    t = await startTestServer({ webhooks, config: { expectedPaths: ['/validate-widget', '/mutate-widget'] } });
    expect(await t.get('health', '/healthz')).toMatchObject({ status: 200, text: 'ok\n' });
    expect(await t.get('health', '/readyz')).toMatchObject({ status: 200, text: 'ok\n' });
    const verbose = await t.get('health', '/readyz?verbose');
    expect(verbose.text).toBe('[+]shutdown ok\n[+]certificate ok\n[+]handlers ok\n[+]webhook-listener ok\nreadyz check passed\n');
  });

  it('refuses readiness, naming the path, when the chart expects a path no class serves', async () => {
    t = await startTestServer({ webhooks, config: { expectedPaths: ['/validate-widget', '/validate-gadget'] } });
    const ready = await t.get('health', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.text).toContain('[-]handlers failed: no handler registered for /validate-gadget');
    expect(t.logs.some((line) => String(line.msg).includes('no handler for /validate-gadget'))).toBe(true);
    expect((await t.get('health', '/healthz')).status).toBe(200);
  });

  it('turns unready as soon as shutdown starts, keeps answering during the drain, then closes', async () => {
    t = await startTestServer({ webhooks, config: { shutdown: { drainSeconds: 1, timeoutSeconds: 2 } } });
    const stopping = t.server.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ready = await t.get('health', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.text).toContain('[-]shutdown failed: shutting down');
    expect((await t.post('/validate-widget', review())).json.response.allowed).toBe(true);
    await stopping;
    await expect(t.post('/validate-widget', review())).rejects.toThrow(/ECONNREFUSED/);
    t = undefined;
  });

  it('lets a request in flight finish when the listener closes', async () => {
    t = await startTestServer({ webhooks, config: { shutdown: { drainSeconds: 0, timeoutSeconds: 5 } } });
    const slow = t.post('/validate-widget-slow', review()); // runs ~800 ms until its deadline
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopping = t.server.shutdown();
    expect((await slow).json.response.status.code).toBe(504);
    await stopping;
    t = undefined;
  });
});

describe('metrics', () => {
  it('expose requests, latency, in-flight, certificate expiry and process metrics in Prometheus format', async () => {
    t = await startTestServer({ webhooks });
    await t.post('/validate-widget', review());
    await t.post('/validate-widget', admissionReview({ object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 50 } } }));
    await t.post('/mutate-widget', review());
    const res = await t.get('metrics', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0.0.4/);
    expect(res.text).toContain('shaper_webhook_requests_total{webhook="/validate-widget",operation="CREATE",allowed="true",code="200"} 1');
    expect(res.text).toContain('shaper_webhook_requests_total{webhook="/validate-widget",operation="CREATE",allowed="false",code="422"} 1');
    expect(res.text).toContain('shaper_webhook_requests_total{webhook="/mutate-widget",operation="CREATE",allowed="true",code="200"} 1');
    expect(res.text).toMatch(/shaper_webhook_request_duration_seconds_count\{webhook="\/validate-widget"\} 2/);
    expect(res.text).toMatch(/shaper_webhook_requests_in_flight\{webhook="\/validate-widget"\} 0/);
    expect(res.text).toMatch(/shaper_webhook_certificate_expiry_timestamp_seconds \d{10}/);
    expect(res.text).toMatch(/process_resident_memory_bytes \d+/);
  });
});
