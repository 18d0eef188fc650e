/**
 * The Secret of self-managed certificates, read into the facts the rotation
 * decides on. Its layout:
 *
 * - data `tls.crt`, `tls.key`: the serving certificate every replica serves;
 * - data `ca.crt`: the bundle the API server trusts (oldest CA first), `ca.key`: the key of its last CA, which signs;
 * - annotation `shaper-gen.io/published`: which bundle the webhook configurations and CRDs hold since when;
 * - annotations `replica.shaper-gen.io/<pod>`: what each replica serves, and when it said so.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { CaFacts, ReplicaReport, RotationState, ServingFacts } from './rotation.js';

export const PUBLISHED_ANNOTATION = 'shaper-gen.io/published';
export const REPLICA_ANNOTATION_PREFIX = 'replica.shaper-gen.io/';

export interface SecretObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
}

/** What the Secret holds, decoded. */
export interface CertificateMaterial {
  readonly caBundle: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
}

export function materialOf(secret: SecretObject | undefined): CertificateMaterial {
  const field = (key: string) => (secret?.data?.[key] ? Buffer.from(secret.data[key], 'base64').toString('utf8') : '');
  return { caBundle: field('ca.crt'), caKey: field('ca.key'), servingCert: field('tls.crt'), servingKey: field('tls.key') };
}

export function splitPem(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.map((pem) => `${pem}\n`) ?? [];
}

function parse(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

function caFacts(certificate: X509Certificate): CaFacts {
  return { fingerprint: certificate.fingerprint256, notBefore: Date.parse(certificate.validFrom), notAfter: Date.parse(certificate.validTo) };
}

/** The CAs of a PEM bundle that parse and are CAs. */
export function casOf(bundle: string): { pem: string; certificate: X509Certificate }[] {
  return splitPem(bundle)
    .map((pem) => ({ pem, certificate: parse(pem) }))
    .filter((entry): entry is { pem: string; certificate: X509Certificate } => entry.certificate?.ca === true);
}

function hostsOf(certificate: X509Certificate): string[] {
  return (certificate.subjectAltName ?? '')
    .split(', ')
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''))
    .filter((entry) => entry !== '');
}

function servingFacts(pem: string, cas: readonly X509Certificate[]): ServingFacts | undefined {
  const certificate = parse(pem);
  if (!certificate) return undefined;
  const issuer = cas.find((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
  return {
    serial: certificate.serialNumber,
    notBefore: Date.parse(certificate.validFrom),
    notAfter: Date.parse(certificate.validTo),
    issuer: issuer?.fingerprint256,
    hosts: hostsOf(certificate),
  };
}

/** The serial of a PEM certificate; '' when it does not parse. */
export function serialOf(pem: string): string {
  return parse(pem)?.serialNumber ?? '';
}

function keyMatches(certificate: X509Certificate | undefined, key: string): boolean {
  if (!certificate || key === '') return false;
  try {
    return certificate.checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}

export function replicaReports(annotations: Readonly<Record<string, string>> | undefined): Record<string, ReplicaReport> {
  const reports: Record<string, ReplicaReport> = {};
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (!key.startsWith(REPLICA_ANNOTATION_PREFIX)) continue;
    const [serving = '', seenAt = ''] = value.split(' ');
    if (serving !== '' && /^\d+$/.test(seenAt)) reports[key.slice(REPLICA_ANNOTATION_PREFIX.length)] = { serving, seenAt: Number(seenAt) };
  }
  return reports;
}

export function replicaReportValue(report: ReplicaReport): string {
  return `${report.serving} ${report.seenAt}`;
}

export function publishedOf(annotations: Readonly<Record<string, string>> | undefined): RotationState['published'] {
  const value = annotations?.[PUBLISHED_ANNOTATION];
  const match = value?.match(/^(\S*) (\d+)$/);
  return match ? { bundle: match[1]!, at: Number(match[2]) } : undefined;
}

export function publishedValue(bundle: string, at: number): string {
  return `${bundle} ${at}`;
}

export function rotationState(secret: SecretObject | undefined): RotationState {
  const material = materialOf(secret);
  const cas = casOf(material.caBundle).map((entry) => entry.certificate);
  const signer = cas.at(-1);
  return {
    cas: cas.map(caFacts),
    signingKey: keyMatches(signer, material.caKey),
    serving: material.servingCert !== '' && material.servingKey !== '' ? servingFacts(material.servingCert, cas) : undefined,
    published: publishedOf(secret?.metadata.annotations),
    replicas: replicaReports(secret?.metadata.annotations),
  };
}
