/** TLS of the admission port: minimum version, cipher suites, hot reload (in place and Kubernetes' symlink swap), mTLS. */
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { webhooks } from '../../fixtures/runtime/handlers.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';
import type { Pem } from '../../../support/pki.js';
import { handshake, offeredTls12Suites } from '../../support/tls-probe.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const review = () => admissionReview({ object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } } });

function servedCertificate(port: number): Promise<tls.PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, servername: 'localhost' }, () => {
      resolve(socket.getPeerCertificate());
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

async function waitFor<T>(probe: () => Promise<T>, ok: (value: T) => boolean, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('TLS', () => {
  it('refuses TLS 1.1 and accepts 1.2 and 1.3', async () => {
    t = await startTestServer({ webhooks });
    const port = t.addresses.webhook.port;
    const attempt = (version: tls.SecureVersion) =>
      new Promise<string>((resolve) => {
        const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, minVersion: version, maxVersion: version }, () => {
          resolve(socket.getProtocol() ?? '');
          socket.destroy();
        });
        socket.on('error', (error) => resolve(`error: ${error.message}`));
      });
    expect(await attempt('TLSv1.1')).toMatch(/^error/);
    expect(await attempt('TLSv1.2')).toBe('TLSv1.2');
    expect(await attempt('TLSv1.3')).toBe('TLSv1.3');
  });

  it('offers only ECDHE suites with AES-GCM or ChaCha20-Poly1305 on TLS 1.2, for ECDSA and RSA certificates alike', async () => {
    t = await startTestServer({ webhooks });
    const port = t.addresses.webhook.port;
    const withEcdsaCertificate = await offeredTls12Suites(port);
    // The RSA certificate arrives as a reload, the path on which Node forgets settings not given again.
    const rsa = await t.ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'], keyType: 'RSA' });
    writeFileSync(path.join(t.certDir, 'tls.key'), rsa.key);
    writeFileSync(path.join(t.certDir, 'tls.crt'), rsa.cert);
    await t.server['certificate'].reload();
    const withRsaCertificate = await offeredTls12Suites(port);
    const staticRsa = ['AES128-SHA', 'AES256-SHA', 'AES128-GCM-SHA256', 'AES256-GCM-SHA384', 'AES128-SHA256', 'AES256-SHA256'];
    const tls12 = { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const;
    expect({
      withEcdsaCertificate,
      withRsaCertificate,
      staticRsa: await Promise.all(staticRsa.map((ciphers) => handshake(port, { ciphers, ...tls12 }))),
      ecdheRsa: await handshake(port, { ciphers: 'ECDHE-RSA-AES128-GCM-SHA256', ...tls12 }),
      tls13: await handshake(port, { minVersion: 'TLSv1.3' }),
    }).toEqual({
      withEcdsaCertificate: ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305'],
      withRsaCertificate: ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305'],
      staticRsa: staticRsa.map(() => 'refused'),
      ecdheRsa: 'ECDHE-RSA-AES128-GCM-SHA256',
      tls13: 'TLS_AES_256_GCM_SHA384',
    });
  });

  it('offers the cipherSuites configured, by IANA or OpenSSL name', async () => {
    t = await startTestServer({ webhooks, config: { webhook: { cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'ECDHE-ECDSA-AES128-GCM-SHA256'] } } });
    expect(await offeredTls12Suites(t.addresses.webhook.port)).toEqual(['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES128-SHA']);
  });

  it('keeps tlsMinVersion 1.3 after the certificate is reloaded', async () => {
    t = await startTestServer({ webhooks, config: { webhook: { tlsMinVersion: '1.3' } } });
    const next = await t.ca.issue({ commonName: 'rotated', hosts: ['localhost', '127.0.0.1'] });
    writeFileSync(path.join(t.certDir, 'tls.key'), next.key);
    writeFileSync(path.join(t.certDir, 'tls.crt'), next.cert);
    await t.server['certificate'].reload();
    expect({
      served: (await servedCertificate(t.addresses.webhook.port)).subject.CN,
      tls12: await handshake(t.addresses.webhook.port, { maxVersion: 'TLSv1.2' }),
    }).toEqual({ served: 'rotated', tls12: 'refused' });
  });

  it('reloads a certificate rewritten in place, keeping keep-alive connections and serving throughout', async () => {
    t = await startTestServer({ webhooks });
    const before = await servedCertificate(t.addresses.webhook.port);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await t.post('/validate-widget', review(), { agent })).json.response.allowed).toBe(true);

    const next = await t.ca.issue({ commonName: 'rotated', hosts: ['localhost', '127.0.0.1'] });
    writeFileSync(path.join(t.certDir, 'tls.key'), next.key);
    writeFileSync(path.join(t.certDir, 'tls.crt'), next.cert);
    // Requests keep succeeding while the swap happens (the mismatched pair in between is never served).
    const during = await Promise.all(Array.from({ length: 20 }, () => t!.post('/validate-widget', review())));
    expect(during.every((res) => res.json.response.allowed)).toBe(true);

    const after = await waitFor(
      () => servedCertificate(t!.addresses.webhook.port),
      (cert) => cert.subject.CN === 'rotated',
    );
    expect(after.subject.CN).toBe('rotated');
    expect(after.fingerprint256).not.toBe(before.fingerprint256);
    expect((await t.post('/validate-widget', review(), { agent })).json.response.allowed).toBe(true);
    agent.destroy();
    const metrics = (await t.get('metrics', '/metrics')).text;
    expect(metrics).toMatch(/shaper_webhook_certificate_reloads_total 2/);
    expect(metrics).toMatch(/shaper_webhook_certificate_expiry_timestamp_seconds \d+/);
  });

  it('follows the atomic ..data symlink swap Kubernetes does for Secret volumes', async () => {
    t = await startTestServer({ webhooks });
    // Lay the cert dir out like a Secret volume: tls.crt -> ..data/tls.crt, ..data -> ..<timestamp>.
    const writeVersion = (name: string, pem: Pem) => {
      const dir = path.join(t!.certDir, name);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'tls.crt'), pem.cert);
      writeFileSync(path.join(dir, 'tls.key'), pem.key);
    };
    const first = await t.ca.issue({ commonName: 'version-1', hosts: ['localhost'] });
    writeVersion('..v1', first);
    symlinkSync('..v1', path.join(t.certDir, '..data'));
    for (const file of ['tls.crt', 'tls.key']) {
      rmSync(path.join(t.certDir, file));
      symlinkSync(path.join('..data', file), path.join(t.certDir, file));
    }
    expect(
      (
        await waitFor(
          () => servedCertificate(t!.addresses.webhook.port),
          (c) => c.subject.CN === 'version-1',
        )
      ).subject.CN,
    ).toBe('version-1');

    const second = await t.ca.issue({ commonName: 'version-2', hosts: ['localhost'] });
    writeVersion('..v2', second);
    symlinkSync('..v2', path.join(t.certDir, '..data_tmp'));
    renameSync(path.join(t.certDir, '..data_tmp'), path.join(t.certDir, '..data'));
    rmSync(path.join(t.certDir, '..v1'), { recursive: true });
    expect(
      (
        await waitFor(
          () => servedCertificate(t!.addresses.webhook.port),
          (c) => c.subject.CN === 'version-2',
        )
      ).subject.CN,
    ).toBe('version-2');
    expect((await t.post('/validate-widget', review())).json.response.allowed).toBe(true);
  });

  it('loads a certificate with an empty subject and only SANs, as cert-manager issues them', async () => {
    t = await startTestServer({ webhooks });
    const sanOnly = await t.ca.issue({ commonName: '', emptySubject: true, hosts: ['shaper.shaper-system.svc', '127.0.0.1'] });
    writeFileSync(path.join(t.certDir, 'tls.key'), sanOnly.key);
    writeFileSync(path.join(t.certDir, 'tls.crt'), sanOnly.cert);
    const served = await waitFor(
      () => servedCertificate(t!.addresses.webhook.port),
      (cert) => Object.keys((cert.subject as object | undefined) ?? {}).length === 0,
    );
    expect(served.subjectaltname).toContain('DNS:shaper.shaper-system.svc');
    expect((await t.get('health', '/readyz')).status).toBe(200);
  });

  it('keeps the old certificate and counts an error when the new files are broken', async () => {
    t = await startTestServer({ webhooks });
    writeFileSync(path.join(t.certDir, 'tls.crt'), 'not a certificate');
    const metrics = await waitFor(
      () => t!.get('metrics', '/metrics'),
      (res) => /certificate_reload_errors_total [1-9]/.test(res.text),
    );
    expect(metrics.text).toMatch(/shaper_webhook_certificate_reload_errors_total [1-9]/);
    expect((await t.post('/validate-widget', review())).json.response.allowed).toBe(true);
  });

  it('requires a client certificate signed by clientCAName when configured (mTLS)', async () => {
    const { createTestCA } = await import('../../../support/pki.js');
    const clientCA = await createTestCA('api-server client CA');
    t = await startTestServer({ webhooks, config: { webhook: { clientCAName: 'client-ca.crt' } } });
    writeFileSync(path.join(t.certDir, 'client-ca.crt'), clientCA.cert);
    await t.server['certificate'].reload();
    const apiserver = await clientCA.issue({ commonName: 'kube-apiserver', client: true });
    const stranger = await (await createTestCA('other')).issue({ commonName: 'stranger', client: true });
    await expect(t.post('/validate-widget', review())).rejects.toThrow();
    await expect(t.post('/validate-widget', review(), { client: stranger })).rejects.toThrow();
    expect((await t.post('/validate-widget', review(), { client: apiserver })).json.response.allowed).toBe(true);
  });
});
