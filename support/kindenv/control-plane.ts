/**
 * A real control plane on this machine: etcd, kube-apiserver (RBAC, service
 * account tokens, PodSecurity, aggregator routing so that webhook Services
 * resolve through EndpointSlices) and cert-manager's controllers and CA
 * injector. The node and the controllers that run pods are node.ts and controllers.ts.
 */
import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../free-port.ts';
import { createTestCA, type Pem, type TestCA } from '../pki.ts';
import { GiveUp, startProcess, waitFor, type ManagedProcess } from './processes.ts';
import { certManagerCrdsDir, tool } from './tools.ts';

export interface ControlPlane {
  readonly ca: TestCA;
  readonly apiServerPort: number;
  /** etcd's client URL (plain HTTP on loopback; its JSON gateway answers /v3/kv/…). */
  readonly etcdUrl: string;
  /** Admin (system:masters) kubeconfig, server on loopback. */
  readonly kubeconfigPath: string;
  readonly admin: Pem;
  /** The API server's URL as seen from inside the network namespace. */
  readonly apiServerUrlFromPod: string;
  /** Files the node's components need: the cluster CA, the service-account signing key, an admin kubeconfig reaching the API server from the namespace. */
  readonly files: { caCert: string; serviceAccountKey: string; kubeconfigFromPod: string };
  readonly processes: ManagedProcess[];
  /** Stops kube-apiserver and starts it again on the same port and etcd: clients' watches break and must resume. */
  restartApiServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  dir: string;
  /** The host side of the veth pair: the API server's certificate must name it. */
  hostAddress: string;
  log: (line: string) => void;
  /** Start cert-manager's controllers and install its CRDs (default true); without, the control plane is etcd and kube-apiserver only. */
  certManager?: boolean;
  /** More kube-apiserver flags. */
  apiServerArgs?: readonly string[];
}

export async function startControlPlane({ dir, hostAddress, log, certManager = true, apiServerArgs: extraApiServerArgs = [] }: ControlPlaneOptions): Promise<ControlPlane> {
  const processes: ManagedProcess[] = [];
  const stop = async () => {
    for (const process of [...processes].reverse()) await process.stop();
  };
  try {
    mkdirSync(dir, { recursive: true });
    const ca = await createTestCA('kindenv cluster CA');
    const serving = await ca.issue({ commonName: 'kube-apiserver', hosts: ['127.0.0.1', hostAddress, 'localhost', 'kubernetes.default.svc', '10.96.0.1'] });
    const admin = await ca.issue({ commonName: 'kindenv-admin', organization: 'system:masters', client: true });
    const serviceAccountKey = (await ca.issue({ commonName: 'service-accounts' })).key;
    const file = (name: string, content: string) => {
      const target = path.join(dir, name);
      writeFileSync(target, content, { mode: 0o600 });
      return target;
    };
    const caFile = file('ca.crt', ca.cert);
    const serviceAccountKeyFile = file('sa.key', serviceAccountKey);

    const [etcdPort, etcdPeerPort, apiServerPort] = [await freePort(), await freePort(), await freePort()];
    log(`starting etcd on 127.0.0.1:${etcdPort}`);
    const etcd = startProcess(
      'etcd',
      tool('etcd'),
      [
        '--data-dir',
        path.join(dir, 'etcd'),
        '--listen-client-urls',
        `http://127.0.0.1:${etcdPort}`,
        '--advertise-client-urls',
        `http://127.0.0.1:${etcdPort}`,
        '--listen-peer-urls',
        `http://127.0.0.1:${etcdPeerPort}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${etcdPeerPort}`,
        '--initial-cluster',
        `default=http://127.0.0.1:${etcdPeerPort}`,
        '--unsafe-no-fsync',
        '--log-level',
        'warn',
      ],
      path.join(dir, 'etcd.log'),
    );
    processes.push(etcd);

    log(`starting kube-apiserver on 0.0.0.0:${apiServerPort}`);
    const apiServerArgs = [
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      `--secure-port=${apiServerPort}`,
      '--bind-address=0.0.0.0',
      `--advertise-address=${hostAddress}`,
      `--tls-cert-file=${file('apiserver.crt', serving.cert)}`,
      `--tls-private-key-file=${file('apiserver.key', serving.key)}`,
      `--client-ca-file=${caFile}`,
      '--authorization-mode=RBAC',
      `--service-account-key-file=${file('sa.pub', createPublicKey(serviceAccountKey).export({ type: 'spki', format: 'pem' }).toString())}`,
      `--service-account-signing-key-file=${serviceAccountKeyFile}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      '--api-audiences=https://kubernetes.default.svc',
      '--service-cluster-ip-range=10.96.0.0/16',
      // Webhook Services resolve through their EndpointSlices (no kube-proxy, no cluster IPs here).
      '--enable-aggregator-routing=true',
      '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,PodSecurity,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ResourceQuota',
      // The `kubernetes` Service's endpoint is the address pods reach (kube-proxy on the node DNATs 10.96.0.1 to it);
      // without a pod network (loopback only) there is none to publish, and Endpoints refuse loopback addresses.
      `--endpoint-reconciler-type=${hostAddress.startsWith('127.') ? 'none' : 'lease'}`,
      '--v=1',
      ...extraApiServerArgs,
    ];
    const launchApiServer = () => {
      const started = startProcess('kube-apiserver', tool('kube-apiserver'), apiServerArgs, path.join(dir, 'kube-apiserver.log'), {
        // The API server must call webhooks directly, never through a proxy from the environment.
        env: {
          ...process.env,
          HTTPS_PROXY: '',
          https_proxy: '',
          HTTP_PROXY: '',
          http_proxy: '',
          NO_PROXY: '.svc,.svc.cluster.local,127.0.0.1,10.0.0.0/8',
          no_proxy: '.svc,.svc.cluster.local,127.0.0.1,10.0.0.0/8',
        },
      });
      processes.splice(1, 1, started);
      return started;
    };
    let apiServer = launchApiServer();

    const kubeconfigPath = path.join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfigPath, `https://127.0.0.1:${apiServerPort}`, ca.cert, { cert: admin.cert, key: admin.key });
    const kubeconfigFromPod = path.join(dir, 'kubeconfig-from-pod');
    writeKubeconfig(kubeconfigFromPod, `https://${hostAddress}:${apiServerPort}`, ca.cert, { cert: admin.cert, key: admin.key });
    const apiServerReady = () =>
      waitFor(
        'kube-apiserver /readyz',
        async () => {
          if (apiServer.child.exitCode !== null) throw new GiveUp(`kube-apiserver exited:\n${apiServer.tail()}`);
          const status = await getStatus(apiServerPort, '/readyz', ca.cert, admin).catch(() => 0);
          return status === 200 ? true : undefined;
        },
        120_000,
        500,
      );
    await apiServerReady();
    log('kube-apiserver is ready');

    if (certManager) await startCertManager(apiServerPort, ca.cert, admin, kubeconfigPath, dir, processes, log);

    const restartApiServer = async () => {
      log('restarting kube-apiserver');
      await apiServer.stop();
      // Its port can stay taken for a moment after it exits (seen once in CI: "bind: address already in use"); a few
      // bounded tries, and what held the port in the failure when they run out.
      for (let attempt = 1; ; attempt++) {
        apiServer = launchApiServer();
        try {
          await apiServerReady();
          break;
        } catch (error) {
          if (attempt === 5 || !apiServer.tail().includes('address already in use'))
            throw new Error(`${(error as Error).message}\nlisteners on ${apiServerPort}: ${portHolders(apiServerPort)}`, { cause: error });
          log(`kube-apiserver could not bind ${apiServerPort} yet (try ${attempt}); trying again in 2 s`);
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
      }
      log('kube-apiserver is ready again');
    };
    return {
      ca,
      apiServerPort,
      etcdUrl: `http://127.0.0.1:${etcdPort}`,
      kubeconfigPath,
      admin,
      apiServerUrlFromPod: `https://${hostAddress}:${apiServerPort}`,
      files: { caCert: caFile, serviceAccountKey: serviceAccountKeyFile, kubeconfigFromPod },
      processes,
      restartApiServer,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function writeKubeconfig(file: string, server: string, caPem: string, user: { cert: string; key: string } | { token: string }): void {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const credentials = 'token' in user ? { token: user.token } : { 'client-certificate-data': b64(user.cert), 'client-key-data': b64(user.key) };
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kindenv', cluster: { server, 'certificate-authority-data': b64(caPem) } }],
      users: [{ name: 'kindenv', user: credentials }],
      contexts: [{ name: 'kindenv', context: { cluster: 'kindenv', user: 'kindenv' } }],
      'current-context': 'kindenv',
    }),
    { mode: 0o600 },
  );
}

async function startCertManager(apiServerPort: number, caPem: string, admin: Pem, kubeconfigPath: string, dir: string, processes: ManagedProcess[], log: (line: string) => void): Promise<void> {
  await applyCertManagerCrds(apiServerPort, caPem, admin);
  log('starting cert-manager controllers and cainjector');
  const certManager = startProcess('cert-manager', tool('shaper-cert-manager'), ['--kubeconfig', kubeconfigPath], path.join(dir, 'cert-manager.log'));
  processes.push(certManager);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  if (certManager.child.exitCode !== null) throw new Error(`cert-manager exited at start:\n${certManager.tail()}`);
}

function getStatus(port: number, urlPath: string, ca: string, client: Pem): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: urlPath, ca, cert: client.cert, key: client.key, agent: false, timeout: 5000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject)
      .on('timeout', function (this: { destroy(): void }) {
        this.destroy();
      });
  });
}

async function applyCertManagerCrds(port: number, ca: string, admin: Pem): Promise<void> {
  const dir = certManagerCrdsDir();
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    await rawRequest(port, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', ca, admin, readFileSync(path.join(dir, name), 'utf8'), 'application/yaml');
  }
}

/** A request to the API server with the admin certificate; returns status, headers and parsed body. */
export function rawRequest(
  port: number,
  method: string,
  urlPath: string,
  ca: string,
  client: Pem,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: urlPath, method, ca, cert: client.cert, key: client.key, agent: false, headers: body ? { 'Content-Type': contentType } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Who holds `port`, as `ss` sees it, for a failure message. */
function portHolders(port: number): string {
  try {
    return execFileSync('ss', ['-Htanp', `sport = :${port}`], { encoding: 'utf8' }).trim() || 'none';
  } catch (error) {
    return `ss failed: ${(error as Error).message}`;
  }
}
