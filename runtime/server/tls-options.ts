/**
 * The webhook port's TLS: protocol floor and cipher suites, client
 * certificates (mTLS), and where the serving certificate comes from — a fixed
 * one (serve --dev, tests) or certDir, watched and swapped in on change.
 */
import { X509Certificate } from 'node:crypto';
import type { Server, ServerOptions } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import { CertificateWatcher } from '../tls/certificate-watcher.js';
import { nodeCipherList } from '../tls/cipher-suites.js';
import type { ServerMetrics } from './metrics.js';

type WebhookConfig = ServerConfig['webhook'];

/** Node resets both whenever the certificate is replaced, unless given again (setSecureContext). */
function protocolOptions(config: WebhookConfig) {
  return {
    minVersion: config.tlsMinVersion === '1.3' ? 'TLSv1.3' : 'TLSv1.2',
    ciphers: nodeCipherList(config.cipherSuites),
  } as const satisfies SecureContextOptions;
}

/** The TLS part of the https server's options; `certificate` is the fixed one, if any. */
export function tlsServerOptions(config: WebhookConfig, handshakeTimeoutMs: number, certificate?: SecureContextOptions): ServerOptions {
  const mtls = config.clientCAName !== '';
  return {
    ...protocolOptions(config),
    requestCert: mtls,
    rejectUnauthorized: mtls,
    // A peer that connects and never completes the handshake gives its socket back within this (Node's default: 120 s).
    handshakeTimeout: handshakeTimeoutMs,
    ...certificate,
  };
}

export interface ServingCertificate {
  /** Whether a certificate is in use (a fixed one, or one certDir gave). */
  readonly loaded: () => boolean;
  readonly start: () => Promise<void>;
  /** Loads certDir now, instead of when the watch or the poll next notices a change; the serial served then. */
  readonly reload: () => Promise<string | undefined>;
  readonly stop: () => void;
}

/** Feeds `server` its certificate and keeps the certificate metrics; a fixed certificate needs no watching. */
export function servingCertificate(
  server: Server,
  config: WebhookConfig,
  { log, metrics, certificate }: { log: Logger; metrics: ServerMetrics; certificate?: SecureContextOptions },
): ServingCertificate {
  if (certificate) {
    metrics.certificateExpiry.set(notAfterOf(certificate).getTime() / 1000);
    const serial = new X509Certificate(certificateOf(certificate)).serialNumber;
    return { loaded: () => true, start: () => Promise.resolve(), reload: () => Promise.resolve(serial), stop: () => undefined };
  }
  const dir = config.certDir;
  const protocol = protocolOptions(config);
  const watcher = new CertificateWatcher(
    { certFile: `${dir}/${config.certName}`, keyFile: `${dir}/${config.keyName}`, clientCAFile: config.clientCAName ? `${dir}/${config.clientCAName}` : undefined },
    {
      log,
      pollMs: config.certPollSeconds * 1000,
      onLoad: (loaded) => {
        server.setSecureContext({ ...protocol, ...loaded.context });
        metrics.certificateReloads.inc();
        metrics.certificateExpiry.set(loaded.notAfter.getTime() / 1000);
      },
      onError: () => metrics.certificateReloadErrors.inc(),
    },
  );
  return {
    loaded: () => watcher.current !== undefined,
    start: () => watcher.start(),
    reload: () => watcher.reload().then(() => watcher.current?.serial),
    stop: () => watcher.stop(),
  };
}

function certificateOf(context: SecureContextOptions) {
  return (Array.isArray(context.cert) ? context.cert[0] : context.cert)!;
}

function notAfterOf(context: SecureContextOptions): Date {
  return new Date(new X509Certificate(certificateOf(context)).validTo);
}
