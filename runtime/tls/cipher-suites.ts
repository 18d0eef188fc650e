/**
 * TLS 1.2 cipher suites of the webhook port. By default the forward-secret
 * AEAD part of Go crypto/tls's defaults, which is what kube-apiserver and
 * controller-runtime webhook servers offer: ECDHE with AES-GCM or
 * ChaCha20-Poly1305. Go's defaults also keep four ECDHE CBC-SHA1 suites; they
 * can be turned on here, static-RSA key exchange cannot. As in Go, the TLS 1.3
 * suites are not configurable: Node's defaults stay.
 */
import tls from 'node:tls';

interface CipherSuite {
  readonly iana: string;
  readonly openssl: string;
  readonly byDefault: boolean;
}

export const CIPHER_SUITES: readonly CipherSuite[] = [
  { iana: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', openssl: 'ECDHE-ECDSA-AES128-GCM-SHA256', byDefault: true },
  { iana: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', openssl: 'ECDHE-RSA-AES128-GCM-SHA256', byDefault: true },
  { iana: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', openssl: 'ECDHE-ECDSA-AES256-GCM-SHA384', byDefault: true },
  { iana: 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', openssl: 'ECDHE-RSA-AES256-GCM-SHA384', byDefault: true },
  { iana: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305', byDefault: true },
  { iana: 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', openssl: 'ECDHE-RSA-CHACHA20-POLY1305', byDefault: true },
  { iana: 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', openssl: 'ECDHE-ECDSA-AES128-SHA', byDefault: false },
  { iana: 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', openssl: 'ECDHE-RSA-AES128-SHA', byDefault: false },
  { iana: 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', openssl: 'ECDHE-ECDSA-AES256-SHA', byDefault: false },
  { iana: 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', openssl: 'ECDHE-RSA-AES256-SHA', byDefault: false },
];

/** Every name the config accepts: IANA names, then OpenSSL names. */
export const CIPHER_SUITE_NAMES: readonly string[] = [...CIPHER_SUITES.map((suite) => suite.iana), ...CIPHER_SUITES.map((suite) => suite.openssl)];

const TLS13_SUITES = tls.DEFAULT_CIPHERS.split(':').filter((name) => name.startsWith('TLS_'));

/**
 * The `ciphers` string for node:tls: Node's TLS 1.3 suites, then the TLS 1.2
 * suites named (IANA or OpenSSL names), or the defaults when none are.
 * Without a TLS 1.3 suite in the string, Node would turn TLS 1.3 off.
 */
export function nodeCipherList(names: readonly string[]): string {
  const chosen = names.length === 0 ? CIPHER_SUITES.filter((suite) => suite.byDefault) : names.map(suiteNamed);
  return [...TLS13_SUITES, ...new Set(chosen.map((suite) => suite.openssl))].join(':');
}

function suiteNamed(name: string): CipherSuite {
  const suite = CIPHER_SUITES.find((candidate) => candidate.iana === name || candidate.openssl === name);
  if (!suite) throw new RangeError(`unsupported TLS cipher suite ${JSON.stringify(name)}; expected one of ${CIPHER_SUITE_NAMES.join(', ')}`);
  return suite;
}
