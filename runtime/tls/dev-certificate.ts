/** A throwaway self-signed certificate for `serve --dev`, made in memory. Never for clusters. */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface DevCertificate {
  readonly cert: string;
  readonly key: string;
}

export async function createDevCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1', '::1']): Promise<DevCertificate> {
  x509.cryptoProvider.set(globalThis.crypto);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex'),
    name: 'CN=shaper-gen serve --dev',
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 7 * 24 * 3600_000),
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((host) => (/^[\d.]+$|:/.test(host) ? { type: 'ip', value: host } : { type: 'dns', value: host }))),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: certificate.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}
