/**
 * Keeps the serving certificate current. Watches the certificate directory
 * (Kubernetes swaps Secret volumes atomically through a `..data` symlink, which
 * shows up as a rename in the directory) and polls as a fallback, and hands a
 * new secure context to the server only when the bytes changed and the pair is
 * valid. Connections already open keep their context, so nothing is dropped.
 */
import { X509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

export interface CertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** CA bundle to verify client certificates (mTLS with the API server). */
  readonly clientCAFile?: string;
}

export interface LoadedCertificate {
  readonly context: SecureContextOptions;
  readonly notAfter: Date;
  readonly subject: string;
  /** Hex, as X509Certificate gives it. */
  readonly serial: string;
}

export interface CertificateWatcherOptions {
  readonly log: Logger;
  readonly pollMs: number;
  readonly onLoad: (certificate: LoadedCertificate) => void;
  readonly onError: (error: Error) => void;
}

const SETTLE_MS = 150;

export class CertificateWatcher {
  private bytes: string | undefined;
  private loaded: LoadedCertificate | undefined;
  private readonly watchers: FSWatcher[] = [];
  private poller: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private reloading: Promise<void> = Promise.resolve();

  constructor(
    private readonly files: CertificateFiles,
    private readonly options: CertificateWatcherOptions,
  ) {}

  get current(): LoadedCertificate | undefined {
    return this.loaded;
  }

  /** Loads once (a failure is reported, not thrown: the server stays unready until a load works), then watches. */
  async start(): Promise<void> {
    await this.reload();
    const dirs = new Set([this.files.certFile, this.files.keyFile, this.files.clientCAFile].filter((f): f is string => !!f).map((f) => path.dirname(f)));
    for (const dir of dirs) {
      try {
        const watcher = watch(dir, { persistent: false }, () => this.scheduleReload());
        this.watchers.push(watcher);
        watcher.on('error', (error) => this.options.log.warn({ err: error, dir }, 'certificate directory watch failed; polling only'));
      } catch (error) {
        this.options.log.warn({ err: error, dir }, 'cannot watch the certificate directory; polling only');
      }
    }
    this.poller = setInterval(() => this.scheduleReload(), this.options.pollMs);
    this.poller.unref();
  }

  stop(): void {
    for (const watcher of this.watchers.splice(0)) watcher.close();
    clearInterval(this.poller);
    clearTimeout(this.settleTimer);
  }

  /** Reads the files now; resolves when the attempt is over. Reloads never overlap. */
  reload(): Promise<void> {
    this.reloading = this.reloading.then(() => this.load());
    return this.reloading;
  }

  // A swap touches several files; wait for it to settle instead of reading half of it.
  private scheduleReload(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => void this.reload(), SETTLE_MS);
    this.settleTimer.unref();
  }

  private async load(): Promise<void> {
    let cert: Buffer, key: Buffer, ca: Buffer | undefined;
    try {
      [cert, key, ca] = await Promise.all([readFile(this.files.certFile), readFile(this.files.keyFile), this.files.clientCAFile ? readFile(this.files.clientCAFile) : Promise.resolve(undefined)]);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    const bytes = `${cert.toString('base64')}.${key.toString('base64')}.${ca?.toString('base64') ?? ''}`;
    if (bytes === this.bytes) return;
    try {
      const context: SecureContextOptions = ca ? { cert, key, ca } : { cert, key };
      createSecureContext(context); // throws on a malformed file or a key that does not match the certificate
      const x509 = new X509Certificate(cert);
      this.bytes = bytes;
      // cert-manager issues serving certificates with an empty subject and only SANs.
      const subject = x509.subject ? x509.subject.replaceAll('\n', ', ') : (x509.subjectAltName ?? '');
      this.loaded = { context, notAfter: new Date(x509.validTo), subject, serial: x509.serialNumber };
      this.options.log.info({ subject: this.loaded.subject, notAfter: this.loaded.notAfter.toISOString(), certFile: this.files.certFile }, 'serving certificate loaded');
      this.options.onLoad(this.loaded);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private fail(error: Error): void {
    this.options.log.error(
      { err: error, certFile: this.files.certFile, keyFile: this.files.keyFile },
      this.loaded ? 'serving certificate reload failed; keeping the previous one' : 'serving certificate not loaded',
    );
    this.options.onError(error);
  }
}
