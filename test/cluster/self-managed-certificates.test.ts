/**
 * Self-managed certificates against a real kube-apiserver (etcd and
 * kube-apiserver, no cert-manager): replicas of `serve` on loopback behind one
 * TCP proxy (what the Service is in a cluster), a ValidatingWebhookConfiguration
 * with the proxy's URL and failurePolicy Fail, and the API server calling it
 * (dry-run ConfigMap creates, 4 at a time) throughout:
 *
 * 1. a switch from a CA of our own (what cert-manager or a team's PKI gives) to
 *    self-managed certificates: the replicas take over the trust before the old
 *    replica leaves, and the old CA stays trusted until it has left the
 *    Service's endpoints (an EndpointSlice kept here as the controller would);
 * 2. short lifetimes (CA 60 s, serving certificate 12 s), so that the serving
 *    certificate and the CA rotate while the calls go on;
 * 3. the issuer Lease handed to the other replica, which rotates the CA again:
 *    the one that lost it serves on.
 *
 * Every call must succeed; the counts are printed. The replicas' Node servers
 * close each connection after a few requests, so the API server keeps opening
 * connections, each a TLS handshake against the certificate served at that moment.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'shaper-gen';
import { startServer, type RunningServer } from '../../runtime/server/serve.js';
import { startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { createTestCA } from '../../support/pki.js';
import { relayConnection } from '../support/tcp-relay.js';
import { apiClient, type ApiClient } from './policy-differential/api-client.js';
import { ok } from './policy-differential/cluster.js';

const log = (line: string) => process.stderr.write(`self-managed-certificates: ${line}\n`);
const NAMESPACE = 'hooks';
const TRAFFIC = 'traffic';
const CONFIGURATION = 'sm-hooks';
const CRD = 'widgets.sm.example.com';
const SECRET = 'sm-certificates';
const LEASE = 'sm-issuer';
const CONCURRENCY = 4;

@Webhook({
  path: '/validate-configmap',
  mutating: false,
  rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
})
class ConfigMapValidator {
  validateCreate(): void {}
}

/** A round-robin TCP proxy on loopback: new connections go to the backends of the moment, as a Service's do. */
class Proxy {
  backends: number[] = [];
  connections = 0;
  private next = 0;
  private readonly server = net.createServer((client) => {
    this.connections++;
    relayConnection(client, this.backends[this.next++ % this.backends.length]!);
  });

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  close(): void {
    this.server.close();
  }
}

/** Dry-run ConfigMap creates, CONCURRENCY at a time, until stopped: each one a call to the webhook. */
class Traffic {
  calls = 0;
  readonly failures: string[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(private readonly client: ApiClient) {
    this.loops = Array.from({ length: CONCURRENCY }, (_, i) => this.loop(i));
  }

  private async loop(i: number): Promise<void> {
    while (this.running) {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `call-${i}-${this.calls}`, namespace: TRAFFIC } };
      const answer = await this.client.request('POST', `/api/v1/namespaces/${TRAFFIC}/configmaps?dryRun=All`, body).catch((error: Error) => ({ status: 0, body: error.message }));
      this.calls++;
      if (answer.status !== 201) this.failures.push(`${new Date().toISOString()} ${answer.status} ${JSON.stringify(answer.body).slice(150, 600)}`);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

let dir: string;
let plane: ControlPlane | undefined;
let client: ApiClient;
const proxy = new Proxy();
const replicas: RunningServer[] = [];

/** A replica of `serve` on loopback, its certificates from certDir (mode files) or self-managed under `identity`. */
async function startReplica(identity: string, certificates: 'files' | 'self-managed', certDir = path.join(dir, identity)): Promise<RunningServer> {
  process.env.POD_NAME = identity;
  const running = await startServer({
    overrides: {
      handlers: [],
      webhook: { bindAddress: '127.0.0.1', port: 0, certDir, certPollSeconds: 1 },
      health: { port: 0 },
      metrics: { port: 0 },
      shutdown: { drainSeconds: 0, timeoutSeconds: 5 },
      log: { level: 'warn' },
      certificates: {
        mode: certificates,
        namespace: NAMESPACE,
        secretName: SECRET,
        leaseName: LEASE,
        dnsNames: ['127.0.0.1'],
        serviceName: CONFIGURATION,
        webhookConfigurations: [CONFIGURATION],
        conversionCrds: [CRD],
        caValiditySeconds: 60,
        servingValiditySeconds: 12,
        checkSeconds: 1,
      },
    },
    instances: [new ConfigMapValidator()],
  });
  // Node closes a connection after this many requests (Connection: close): the API server then opens a new one.
  running.server['listener'].server.maxRequestsPerSocket = 5;
  replicas.push(running);
  return running;
}

async function ready(running: RunningServer): Promise<boolean> {
  return (await running.server.readiness(false)).status === 200;
}

interface Observed {
  /** Every distinct bundle the webhook configuration held, as its CAs' fingerprints. */
  bundles: string[][];
  /** When each was first seen. */
  seenAt: number[];
  /** Every serving certificate's serial the replicas served. */
  serials: Set<string>;
}

/** Polls what the API server trusts and what the replicas serve, until stopped. */
function observe(replicasOf: () => RunningServer[]): { observed: Observed; stop: () => Promise<void> } {
  const observed: Observed = { bundles: [], seenAt: [], serials: new Set() };
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      const configuration = (await client.request('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIGURATION}`)).body as {
        webhooks: { clientConfig: { caBundle?: string } }[];
      };
      const bundle = fingerprints(Buffer.from(configuration.webhooks[0]!.clientConfig.caBundle ?? '', 'base64').toString());
      if (bundle.join() !== observed.bundles.at(-1)?.join()) {
        observed.bundles.push(bundle);
        observed.seenAt.push(Date.now());
      }
      for (const replica of replicasOf()) {
        if (await ready(replica)) observed.serials.add(await servedSerial(replica));
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    observed,
    stop: async () => {
      state.running = false;
      await loop;
    },
  };
}

function fingerprints(bundle: string): string[] {
  return (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem).fingerprint256.slice(0, 11));
}

/** The serial of the certificate a replica presents in a TLS handshake now. */
function servedSerial(replica: RunningServer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: replica.addresses.webhook.port, rejectUnauthorized: false });
    socket.once('secureConnect', () => {
      resolve(socket.getPeerX509Certificate()?.serialNumber ?? '');
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

/** The Service's EndpointSlice as the endpoints controller keeps it: the pods that take calls. */
async function setEndpoints(pods: readonly string[]): Promise<void> {
  const path = `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices`;
  const current = await client.request('GET', `${path}/${CONFIGURATION}`);
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: CONFIGURATION,
      namespace: NAMESPACE,
      labels: { 'kubernetes.io/service-name': CONFIGURATION },
      ...(current.status === 200 && { resourceVersion: (current.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion }),
    },
    addressType: 'IPv4',
    ports: [{ name: 'webhook', port: 9443, protocol: 'TCP' }],
    endpoints: pods.map((pod, i) => ({ addresses: [`10.244.0.${i + 10}`], conditions: { ready: true, serving: true }, targetRef: { kind: 'Pod', name: pod, namespace: NAMESPACE } })),
  };
  await ok(current.status === 200 ? client.request('PUT', `${path}/${CONFIGURATION}`, slice) : client.request('POST', path, slice), 'writing the EndpointSlice');
}

async function leaseHolder(): Promise<string> {
  const lease = (await client.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/${LEASE}`)).body as { spec: { holderIdentity: string } };
  return lease.spec.holderIdentity;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-self-managed-'));
  plane = await startControlPlane({ dir: path.join(dir, 'cluster'), hostAddress: '127.0.0.1', log, certManager: false });
  client = apiClient(plane);
  process.env.KUBECONFIG = plane.kubeconfigPath;
  for (const name of [NAMESPACE, TRAFFIC]) await ok(client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), `creating namespace ${name}`);
});

afterAll(async () => {
  for (const replica of replicas) {
    replica.certificates?.stop();
    await replica.server.shutdown({ skipDrain: true }).catch(() => undefined);
  }
  proxy.close();
  if (plane) client.close();
  await plane?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('self-managed certificates against a real API server', () => {
  it('switches from a CA of its own to self-managed, rotates the serving certificate and the CA, and hands over the issuer, with 0 failed calls', async () => {
    // Before: a replica serving a certificate from a CA the configuration trusts (cert-manager's, in a cluster).
    const ownCa = await createTestCA('team CA');
    const legacyDir = path.join(dir, 'legacy');
    const serving = await ownCa.issue({ commonName: '127.0.0.1', hosts: ['127.0.0.1'] });
    mkdirSync(legacyDir, { recursive: true });
    writeFileSync(path.join(legacyDir, 'tls.crt'), serving.cert);
    writeFileSync(path.join(legacyDir, 'tls.key'), serving.key);
    const legacy = await startReplica('legacy', 'files', legacyDir);
    proxy.backends = [legacy.addresses.webhook.port];
    await setEndpoints(['legacy']);
    const url = `https://127.0.0.1:${await proxy.listen()}`;
    const caBundle = Buffer.from(ownCa.cert).toString('base64');
    await ok(
      client.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: CONFIGURATION },
        webhooks: [
          {
            name: 'validate-configmap.sm.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 5,
            clientConfig: { url: `${url}/validate-configmap`, caBundle },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': TRAFFIC } },
          },
        ],
      }),
      'creating the webhook configuration',
    );
    await ok(
      client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: CRD },
        spec: {
          group: 'sm.example.com',
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v2', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
          conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `${url}/convert`, caBundle } } },
        },
      }),
      'creating the CRD',
    );
    // The API server calls the webhook once it has seen the configuration.
    await waitFor(
      'the webhook answering',
      async () => ((await client.request('POST', `/api/v1/namespaces/${TRAFFIC}/configmaps?dryRun=All`, { metadata: { name: 'probe' } })).status === 201 ? true : undefined),
      30_000,
    );

    const traffic = new Traffic(client);
    const watch = observe(() => replicas.filter((replica) => replica !== legacy));
    const started = Date.now();

    // 1. The switch: self-managed replicas start (unready until the issuer's first certificate), then take the traffic.
    const a = await startReplica('replica-a', 'self-managed');
    const b = await startReplica('replica-b', 'self-managed');
    await waitFor('both self-managed replicas ready', async () => ((await ready(a)) && (await ready(b)) ? true : undefined), 60_000);
    proxy.backends = [a.addresses.webhook.port, b.addresses.webhook.port];
    await setEndpoints(['legacy', 'replica-a', 'replica-b']);
    // The old pod keeps taking calls for a while (a rollout): its CA must stay trusted until it leaves the endpoints.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(watch.observed.bundles.at(-1)?.[0]).toBe(fingerprints(ownCa.cert)[0]);
    await setEndpoints(['replica-a', 'replica-b']);
    const legacyLeft = Date.now();
    await legacy.server.shutdown({ skipDrain: true });
    replicas.splice(replicas.indexOf(legacy), 1);
    log(`switched to self-managed after ${(Date.now() - started) / 1000} s; ${traffic.calls} calls so far, ${traffic.failures.length} failed`);

    // 2. Rotations: the CA (60 s) renews at 40 s, the serving certificate (12 s) every 8 s.
    await waitFor('a CA rotation completed', async () => (watch.observed.bundles.length >= 5 ? true : undefined), 90_000);
    log(`CA rotated after ${(Date.now() - started) / 1000} s; ${traffic.calls} calls so far, ${traffic.failures.length} failed`);

    // 3. The issuer Lease goes to the other replica (as when the issuer is partitioned): the one that lost it serves on.
    const before = await leaseHolder();
    const after = before === 'replica-a' ? 'replica-b' : 'replica-a';
    const lease = (await client.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/${LEASE}`)).body as { spec: Record<string, unknown> };
    await ok(
      client.request('PUT', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/${LEASE}`, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: after, renewTime: new Date().toISOString().replace('Z', '000Z') },
      }),
      'handing over the Lease',
    );
    const loser = before === 'replica-a' ? a : b;
    await waitFor('the former issuer stepping down', () => Promise.resolve(loser.certificates?.isIssuer === false ? true : undefined), 10_000);
    const bundlesAtHandover = watch.observed.bundles.length;
    await waitFor('a CA rotation by the new issuer', () => Promise.resolve(watch.observed.bundles.length >= bundlesAtHandover + 2 ? true : undefined), 60_000);
    expect(await ready(loser)).toBe(true);

    await traffic.stop();
    await watch.stop();
    const configuration = (await client.request('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIGURATION}`)).body as {
      webhooks: { clientConfig: { caBundle: string } }[];
    };
    const crd = (await client.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`)).body as {
      spec: { conversion: { webhook: { clientConfig: { caBundle: string } } } };
    };
    const bundles = watch.observed.bundles.map((bundle) => bundle.join('+'));
    log(
      `${traffic.calls} calls, ${traffic.failures.length} failed, over ${(Date.now() - started) / 1000} s; ${proxy.connections} connections (TLS handshakes); ` +
        `${watch.observed.serials.size} serving certificates served; bundles in order: ${bundles.join(' -> ')}; issuer ${before} -> ${await leaseHolder()}`,
    );
    expect(traffic.failures).toEqual([]);
    // The team CA, then team + first CA, then the first CA alone, then first + second, then the second alone.
    const [ownFingerprint] = fingerprints(ownCa.cert);
    const [first, ...rest] = watch.observed.bundles;
    expect(first).toEqual([ownFingerprint]);
    // Then, CA after CA: [old, new] (the overlap), then [new] alone.
    rest.forEach((bundle, i) => expect(bundle).toEqual(i % 2 === 0 ? [(rest[i - 1] ?? first)![0], bundle[1]] : [rest[i - 1]![1]]));
    expect(rest.length).toBeGreaterThanOrEqual(6);
    expect(watch.observed.seenAt[2]).toBeGreaterThan(legacyLeft);
    expect(crd.spec.conversion.webhook.clientConfig.caBundle).toBe(configuration.webhooks[0]!.clientConfig.caBundle);
    expect(await leaseHolder()).toBe(after);
  }, 240_000);
});
