/**
 * Certificates made in memory with @peculiar/x509: ECDSA P-256 keys, a CA, and
 * serving certificates (self-signed for `serve --dev`, or signed by a CA for
 * self-managed certificates).
 */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A PEM certificate and its PEM PKCS#8 key. */
export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** Clocks of the API server and this pod may differ a little: a certificate is valid from a minute ago. */
const BACKDATE_MS = 60_000;

function provider(): void {
  x509.cryptoProvider.set(globalThis.crypto);
}

function serialNumber(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0]! &= 0x7f; // positive, as RFC 5280 requires
  return Buffer.from(bytes).toString('hex');
}

async function exportPair(certificate: x509.X509Certificate, keys: webcrypto.CryptoKeyPair): Promise<KeyPair> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  // Each ends with a newline, so that PEMs concatenate into a bundle.
  const line = (pem: string) => (pem.endsWith('\n') ? pem : `${pem}\n`);
  return { cert: line(certificate.toString('pem')), key: line(x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')) };
}

function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
}

function sanEntry(host: string): x509.JsonGeneralName {
  return /^[\d.]+$|:/.test(host) ? { type: 'ip', value: host } : { type: 'dns', value: host };
}

function serverExtensions(hosts: readonly string[]): x509.Extension[] {
  return [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(hosts.map(sanEntry)),
  ];
}

/** A self-signed certificate named `commonName` with `extensions` made for its keys. */
async function createSelfSigned(commonName: string, notAfter: Date, now: Date, extensions: (keys: webcrypto.CryptoKeyPair) => Promise<x509.Extension[]> | x509.Extension[]): Promise<KeyPair> {
  provider();
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${commonName}`,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter,
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: await extensions(keys),
  });
  return exportPair(certificate, keys);
}

/** A self-signed serving certificate for `hosts` (names or IP addresses). */
export function createSelfSignedServing(commonName: string, hosts: readonly string[], notAfter: Date, now = new Date()): Promise<KeyPair> {
  return createSelfSigned(commonName, notAfter, now, () => serverExtensions(hosts));
}

/** A CA certificate that signs serving certificates only (path length 0). */
export function createCa(commonName: string, notAfter: Date, now = new Date()): Promise<KeyPair> {
  return createSelfSigned(commonName, notAfter, now, async (keys) => [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ]);
}

/** A serving certificate for `hosts`, signed by `ca`; never valid past the CA. */
export async function createServing(ca: KeyPair, hosts: readonly string[], notAfter: Date, now = new Date()): Promise<KeyPair> {
  provider();
  const caCertificate = new x509.X509Certificate(ca.cert);
  const caKey = await webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(ca.key), ALGORITHM, false, ['sign']);
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${hosts[0] ?? 'shaper-gen serve'}`,
    issuer: caCertificate.subject,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(Math.min(notAfter.getTime(), caCertificate.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALGORITHM,
    extensions: [...serverExtensions(hosts), await x509.AuthorityKeyIdentifierExtension.create(caCertificate)],
  });
  return exportPair(certificate, keys);
}
