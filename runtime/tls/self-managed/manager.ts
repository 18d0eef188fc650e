/**
 * Self-managed certificates in a running server. Every `checkSeconds` each
 * replica: renews or tries to take the issuer Lease; as the issuer, takes the
 * rotation's steps (rotation.ts) against the Secret and the CA bundle's
 * targets; writes the Secret's serving certificate into certDir when it
 * changed, where the certificate watcher loads it; and reports what it serves.
 * A replica that loses the Lease, or cannot reach the API server, keeps serving
 * the certificate it has.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ApiConnection } from '../../kube/api-connection.js';
import { createCa, createServing } from '../issue.js';
import { currentCaBundle, publishCaBundle, type CaBundleTargets } from './ca-bundle-targets.js';
import { expectOk, IssuerLease } from './lease.js';
import { liveReplicas, nextStep, type RotationPolicy, type RotationStep } from './rotation.js';
import {
  casOf,
  materialOf,
  PUBLISHED_ANNOTATION,
  publishedValue,
  REPLICA_ANNOTATION_PREFIX,
  replicaReports,
  replicaReportValue,
  rotationState,
  serialOf,
  type CertificateMaterial,
  type SecretObject,
} from './secret-state.js';

const IDLE_TIMEOUT_MS = 10_000;

interface SecretChange {
  readonly data?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly log: () => void;
}

interface EndpointSlice {
  endpoints?: { conditions?: { serving?: boolean }; targetRef?: { kind?: string; name: string } }[];
}
/** Steps one check may take: a fresh install is add-ca, publish, (wait), issue-serving. */
const MAX_STEPS = 6;

export interface SelfManagedOptions extends CaBundleTargets {
  readonly api: ApiConnection;
  readonly namespace: string;
  readonly secretName: string;
  readonly leaseName: string;
  /** This replica's name (the pod's); reported in the Secret and held in the Lease. */
  readonly identity: string;
  readonly dnsNames: readonly string[];
  /** The Service whose endpoints must all serve the newest certificate before old CAs go; '' to rely on the reports alone. */
  readonly serviceName: string;
  readonly caValiditySeconds: number;
  readonly servingValiditySeconds: number;
  readonly checkSeconds: number;
  /** Where the serving certificate is written for the certificate watcher. */
  readonly certFile: string;
  readonly keyFile: string;
  /**
   * Loads the files just written (the server's certificate watcher); resolves with the serial it serves then, or
   * undefined when it cannot tell (the primary of several workers, whose workers load the files themselves).
   */
  readonly reload: () => Promise<string | undefined>;
  readonly log: Logger;
}

export class SelfManagedCertificates {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private served = '';
  private reportedAt = 0;
  private leader = false;
  private readonly lease: IssuerLease;
  private readonly policy: RotationPolicy;

  constructor(private readonly options: SelfManagedOptions) {
    const checkMs = options.checkSeconds * 1000;
    this.lease = new IssuerLease({ api: options.api, namespace: options.namespace, name: options.leaseName, identity: options.identity, durationSeconds: Math.max(3 * options.checkSeconds, 3) });
    this.policy = {
      caValidityMs: options.caValiditySeconds * 1000,
      servingValidityMs: options.servingValiditySeconds * 1000,
      hosts: options.dnsNames,
      // The API server sees a configuration through its informer, which lags under load: 2 checks proved too short on a busy 2-core machine.
      propagationMs: 3 * checkMs,
      replicaTimeoutMs: 6 * checkMs,
    };
  }

  get isIssuer(): boolean {
    return this.leader;
  }

  /** The first check, then one every checkSeconds. Never throws: a failed check is logged and the next one tries again. */
  async start(): Promise<void> {
    await this.check();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), this.options.checkSeconds * 1000);
    this.timer.unref();
  }

  async check(now = Date.now()): Promise<void> {
    const { log } = this.options;
    try {
      const wasLeader = this.leader;
      this.leader = await this.lease.acquire(now);
      if (this.leader !== wasLeader)
        log.info(
          { lease: this.options.leaseName, identity: this.options.identity },
          this.leader ? 'self-managed certificates: this replica is the issuer' : 'self-managed certificates: another replica is the issuer',
        );
    } catch (error) {
      this.leader = false;
      log.warn({ err: error }, 'self-managed certificates: cannot renew the issuer Lease; serving on with the current certificate');
    }
    try {
      let secret = await this.readSecret();
      if (this.leader) secret = await this.rotate(secret);
      await this.serve(secret, now);
    } catch (error) {
      log.warn({ err: error }, 'self-managed certificates: check failed; serving on with the current certificate');
    }
  }

  private get secretPath(): string {
    return `/api/v1/namespaces/${this.options.namespace}/secrets`;
  }

  private async readSecret(): Promise<SecretObject | undefined> {
    const got = await this.options.api.json('GET', `${this.secretPath}/${this.options.secretName}`, { idleTimeoutMs: IDLE_TIMEOUT_MS });
    if (got.status === 404) return undefined;
    expectOk(got, `read Secret ${this.options.namespace}/${this.options.secretName}`);
    return got.body as SecretObject;
  }

  /** Takes the rotation's steps until it says wait; a write that lost a race ends the round (the next check re-reads). */
  private async rotate(secret: SecretObject | undefined): Promise<SecretObject | undefined> {
    const endpoints = await this.servingEndpoints();
    for (let i = 0; i < MAX_STEPS; i++) {
      const now = Date.now();
      const step = nextStep({ ...rotationState(secret), endpoints }, this.policy, now);
      if (step.kind === 'wait') {
        this.options.log.debug({ reason: step.reason, until: new Date(step.until).toISOString() }, 'self-managed certificates: waiting');
        return secret;
      }
      // A write that lost a race (a replica's report changed the Secret meanwhile) is decided again on what is there now.
      secret = (await this.apply(step, secret, now)) ?? (await this.readSecret());
    }
    return secret;
  }

  /** The pods among the Service's EndpointSlices that take calls (ready, or terminating and still serving). */
  private async servingEndpoints(): Promise<string[] | undefined> {
    const { api, namespace, serviceName } = this.options;
    if (serviceName === '') return undefined;
    const selector = encodeURIComponent(`kubernetes.io/service-name=${serviceName}`);
    const got = await api.json('GET', `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${selector}`, { idleTimeoutMs: IDLE_TIMEOUT_MS });
    expectOk(got, `list the EndpointSlices of Service ${namespace}/${serviceName}`);
    const slices = (got.body as { items: EndpointSlice[] }).items;
    return slices.flatMap((slice) =>
      (slice.endpoints ?? []).filter((endpoint) => endpoint.conditions?.serving !== false && endpoint.targetRef?.kind === 'Pod').map((endpoint) => endpoint.targetRef!.name),
    );
  }

  private async apply(step: Exclude<RotationStep, { kind: 'wait' }>, secret: SecretObject | undefined, now: number): Promise<SecretObject | undefined> {
    const change = await this.change(step, materialOf(secret), now);
    const data = { ...secret?.data, ...change.data };
    const annotations = { ...secret?.metadata.annotations, ...change.annotations };
    // Reports of replicas long gone are dropped so the Secret does not grow.
    const live = new Set(liveReplicas(rotationState(secret), { ...this.policy, replicaTimeoutMs: 10 * this.policy.replicaTimeoutMs }, now).map(([name]) => name));
    const kept = Object.entries(annotations).filter(([key]) => !key.startsWith(REPLICA_ANNOTATION_PREFIX) || live.has(key.slice(REPLICA_ANNOTATION_PREFIX.length)));
    const written = await this.writeSecret(secret, data, Object.fromEntries(kept));
    if (written) change.log();
    return written;
  }

  /** What a step changes in the Secret, and what to log once that is written. */
  private async change(step: Exclude<RotationStep, { kind: 'wait' }>, material: CertificateMaterial, now: number): Promise<SecretChange> {
    const { log } = this.options;
    const encode = (text: string) => Buffer.from(text).toString('base64');
    switch (step.kind) {
      case 'add-ca': {
        const notAfter = new Date(now + this.policy.caValidityMs);
        const ca = await createCa(`${this.options.dnsNames[0] ?? this.options.secretName} CA`, notAfter, new Date(now));
        // The first CA keeps what the API server trusts now (cert-manager's CA, on a switch) until every replica serves the new certificate.
        const kept = step.reason === 'none' ? await currentCaBundle(this.options.api, this.options) : material.caBundle;
        const bundle = [...casOf(kept).map((entry) => entry.pem), ca.cert].join('');
        return {
          data: { 'ca.crt': encode(bundle), 'ca.key': encode(ca.key) },
          log: () => log.info({ reason: step.reason, trusted: casOf(bundle).length, notAfter: notAfter.toISOString() }, 'self-managed certificates: new CA added to the bundle'),
        };
      }
      case 'publish': {
        const written = await publishCaBundle(this.options.api, this.options, material.caBundle);
        return {
          annotations: { [PUBLISHED_ANNOTATION]: publishedValue(step.bundle, Date.now()) },
          log: () => log.info({ trusted: casOf(material.caBundle).length, written }, 'self-managed certificates: CA bundle published'),
        };
      }
      case 'issue-serving': {
        const signer = casOf(material.caBundle).at(-1)!;
        const serving = await createServing({ cert: signer.pem, key: material.caKey }, this.options.dnsNames, new Date(now + this.policy.servingValidityMs), new Date(now));
        return {
          data: { 'tls.crt': encode(serving.cert), 'tls.key': encode(serving.key) },
          log: () => log.info({ reason: step.reason, serial: serialOf(serving.cert) }, 'self-managed certificates: new serving certificate issued'),
        };
      }
      case 'drop-old-cas': {
        const keep = casOf(material.caBundle).filter((entry) => entry.certificate.fingerprint256 === step.keep.fingerprint);
        return {
          data: { 'ca.crt': encode(keep.map((entry) => entry.pem).join('')) },
          log: () => log.info({ dropped: casOf(material.caBundle).length - keep.length }, 'self-managed certificates: old CAs removed from the bundle'),
        };
      }
    }
  }

  private async writeSecret(secret: SecretObject | undefined, data: Record<string, string>, annotations: Record<string, string>): Promise<SecretObject | undefined> {
    const { api, namespace, secretName } = this.options;
    const body: SecretObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...secret?.metadata, name: secretName, namespace, annotations },
      type: secret?.type ?? 'Opaque',
      data,
    };
    const response = secret
      ? await api.json('PUT', `${this.secretPath}/${secretName}`, { body, idleTimeoutMs: IDLE_TIMEOUT_MS })
      : await api.json('POST', this.secretPath, { body, idleTimeoutMs: IDLE_TIMEOUT_MS });
    if (response.status === 409) return undefined;
    expectOk(response, `write Secret ${namespace}/${secretName}`);
    return response.body as SecretObject;
  }

  /** Serves the Secret's certificate once it is new, then reports it (and reports again before the report goes stale). */
  private async serve(secret: SecretObject | undefined, now: number): Promise<void> {
    const material = materialOf(secret);
    if (!secret || material.servingCert === '' || material.servingKey === '') return;
    const serial = serialOf(material.servingCert);
    if (serial !== this.served) {
      await writeBoth(this.options, material.servingCert, material.servingKey);
      const served = (await this.options.reload()) ?? serial;
      if (served !== serial) throw new Error(`the server did not load the serving certificate ${serial} written to ${this.options.certFile}; it serves ${served}`);
      this.served = serial;
      this.reportedAt = 0;
    }
    const reported = replicaReports(secret.metadata.annotations)[this.options.identity];
    if (reported?.serving === serial && now - this.reportedAt < this.policy.replicaTimeoutMs / 3) return;
    const patch = { metadata: { annotations: { [`${REPLICA_ANNOTATION_PREFIX}${this.options.identity}`]: replicaReportValue({ serving: serial, seenAt: now }) } } };
    const response = await this.options.api.json('PATCH', `${this.secretPath}/${this.options.secretName}`, {
      body: patch,
      contentType: 'application/merge-patch+json',
      idleTimeoutMs: IDLE_TIMEOUT_MS,
    });
    expectOk(response, `report the served certificate in Secret ${this.options.namespace}/${this.options.secretName}`);
    this.reportedAt = now;
  }
}

/** Both files written aside, then renamed one right after the other: the watcher never reads a new key with an old certificate for long. */
async function writeBoth({ certFile, keyFile }: { certFile: string; keyFile: string }, cert: string, key: string): Promise<void> {
  await mkdir(path.dirname(certFile), { recursive: true });
  const aside = (file: string) => `${file}.${process.pid}.tmp`;
  await Promise.all([writeFile(aside(certFile), cert, { mode: 0o600 }), writeFile(aside(keyFile), key, { mode: 0o600 })]);
  await Promise.all([rename(aside(keyFile), keyFile), rename(aside(certFile), certFile)]);
}
