import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createCa, createServing } from '../../../../runtime/tls/issue.js';
import { bundleId, nextStep } from '../../../../runtime/tls/self-managed/rotation.js';
import { rotationState, type SecretObject } from '../../../../runtime/tls/self-managed/secret-state.js';

const HOSTS = ['localhost', '127.0.0.1'];
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('the Secret of self-managed certificates', () => {
  it('reads into the facts the rotation decides on: the bundle, the signing key, the serving certificate and its issuer, the reports', async () => {
    const now = new Date('2026-11-27T08:00:00Z');
    const old = await createCa('old CA', new Date(now.getTime() + 3600_000), now);
    const current = await createCa('new CA', new Date(now.getTime() + 7200_000), now);
    const serving = await createServing(current, HOSTS, new Date(now.getTime() + 600_000), now);
    const secret: SecretObject = {
      metadata: {
        name: 'hooks-certificates',
        annotations: { 'shaper-gen.io/published': 'X,Y 1764230400000', 'replica.shaper-gen.io/hooks-7d9-abc': '0A1B 1764230401000', unrelated: 'kept out' },
      },
      data: { 'ca.crt': base64(old.cert + current.cert), 'ca.key': base64(current.key), 'tls.crt': base64(serving.cert), 'tls.key': base64(serving.key) },
    };
    const [oldX509, currentX509, servingX509] = [old.cert, current.cert, serving.cert].map((pem) => new X509Certificate(pem));
    const facts = (certificate: X509Certificate) => ({ fingerprint: certificate.fingerprint256, notBefore: Date.parse(certificate.validFrom), notAfter: Date.parse(certificate.validTo) });
    expect(rotationState(secret)).toEqual({
      cas: [facts(oldX509!), facts(currentX509!)],
      signingKey: true,
      serving: {
        serial: servingX509!.serialNumber,
        notBefore: now.getTime() - 60_000,
        notAfter: now.getTime() + 600_000,
        issuer: currentX509!.fingerprint256,
        hosts: HOSTS,
      },
      published: { bundle: 'X,Y', at: 1764230400000 },
      replicas: { 'hooks-7d9-abc': { serving: '0A1B', seenAt: 1764230401000 } },
    });
    // The key of the old CA is not the signer's; a serving certificate signed outside the bundle has no issuer.
    const foreign = await createServing(old, HOSTS, new Date(now.getTime() + 600_000), now);
    const mixed = rotationState({
      ...secret,
      data: { ...secret.data, 'ca.key': base64(old.key), 'ca.crt': base64(current.cert), 'tls.crt': base64(foreign.cert), 'tls.key': base64(foreign.key) },
    });
    expect([mixed.signingKey, mixed.serving?.issuer]).toEqual([false, undefined]);
  });

  it('holds certificates just issued as current, though their notBefore is backdated a minute for clock skew and their lifetime is shorter', async () => {
    const now = Date.parse('2026-11-27T08:00:00Z');
    const ca = await createCa('CA', new Date(now + 30_000), new Date(now));
    const serving = await createServing(ca, HOSTS, new Date(now + 12_000), new Date(now));
    const state = rotationState({
      metadata: { name: 'hooks-certificates', annotations: { 'shaper-gen.io/published': `${new X509Certificate(ca.cert).fingerprint256} ${now}` } },
      data: { 'ca.crt': base64(ca.cert), 'ca.key': base64(ca.key), 'tls.crt': base64(serving.cert), 'tls.key': base64(serving.key) },
    });
    const policy = { caValidityMs: 30_000, servingValidityMs: 12_000, hosts: HOSTS, propagationMs: 2000, replicaTimeoutMs: 6000 };
    expect(state.published?.bundle).toBe(bundleId(state.cas));
    expect(nextStep(state, policy, now + 1000)).toEqual({ kind: 'wait', until: now + 8000, reason: 'certificates current' });
    expect(nextStep(state, policy, now + 8000)).toEqual({ kind: 'issue-serving', reason: 'expiring' });
  });

  it('is empty for a missing Secret', () => {
    expect(rotationState(undefined)).toEqual({ cas: [], signingKey: false, serving: undefined, published: undefined, replicas: {} });
  });

  it('issues a chain that a TLS client trusting the bundle accepts, through either CA of the overlap', async () => {
    const old = await createCa('old CA', new Date(Date.now() + 3600_000));
    const current = await createCa('new CA', new Date(Date.now() + 7200_000));
    const serving = await createServing(current, HOSTS, new Date(Date.now() + 600_000));
    const server = https.createServer({ cert: serving.cert, key: serving.key }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const call = (ca: string) =>
      new Promise<string>((resolve) => {
        https
          .get({ host: '127.0.0.1', port, ca, servername: 'localhost' }, (res) => res.on('data', (chunk: Buffer) => resolve(chunk.toString())))
          .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    try {
      expect([await call(old.cert + current.cert), await call(current.cert), await call(old.cert)]).toEqual(['ok', 'ok', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
    } finally {
      server.close();
    }
  });
});
