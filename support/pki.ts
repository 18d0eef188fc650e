/** Test certificates: a CA and the leaves it signs (serving and client), in PEM. */
import type { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const RSA_ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
x509.cryptoProvider.set(globalThis.crypto);

export interface Pem {
  cert: string;
  key: string;
}

export interface TestCA extends Pem {
  issue(options: {
    commonName: string;
    organization?: string;
    /** no subject at all, only SANs, as cert-manager issues */ emptySubject?: boolean;
    hosts?: string[];
    client?: boolean;
    validDays?: number;
    /** the leaf's key; ECDSA P-256 unless RSA (2048 bits) */ keyType?: 'ECDSA' | 'RSA';
  }): Promise<Pem>;
}

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

const serial = () =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(8)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

export async function createTestCA(name = 'shaper-gen test CA'): Promise<TestCA> {
  const caKeys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 24 * 3600_000),
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return {
    cert: caCert.toString('pem'),
    key: await keyPem(caKeys.privateKey),
    async issue({ commonName, organization, emptySubject = false, hosts = [], client = false, validDays = 1, keyType = 'ECDSA' }) {
      const keys = await crypto.subtle.generateKey(keyType === 'RSA' ? RSA_ALGORITHM : ALGORITHM, true, ['sign', 'verify']);
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: emptySubject ? '' : organization ? `CN=${commonName}, O=${organization}` : `CN=${commonName}`,
        issuer: caCert.subject,
        notBefore: new Date(now - 60_000),
        notAfter: new Date(now + validDays * 24 * 3600_000),
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        signingAlgorithm: ALGORITHM,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.ExtendedKeyUsageExtension([client ? x509.ExtendedKeyUsage.clientAuth : x509.ExtendedKeyUsage.serverAuth]),
          ...(hosts.length ? [new x509.SubjectAlternativeNameExtension(hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h })))] : []),
        ],
      });
      return { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
    },
  };
}
