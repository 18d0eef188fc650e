/** Connection settings from a kubeconfig, the in-cluster ServiceAccount, and the order they are looked for in. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { ApiConnection } from '../../../../runtime/kube/api-connection.js';
import { inClusterSettings } from '../../../../runtime/kube/in-cluster.js';
import { readKubeconfig } from '../../../../runtime/kube/kubeconfig.js';
import { loadConnectionSettings } from '../../../../runtime/kube/load-settings.js';

const CA = '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n';
const b64 = (text: string) => Buffer.from(text).toString('base64');

const root = mkdtempSync(path.join(os.tmpdir(), 'shaper-kubeconfig-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

let count = 0;
/** A kubeconfig with one context, `c`, naming cluster `k` and user `u`; returns its path. */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, { dir = path.join(root, `k${++count}`), extra = {} } = {}): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'k', cluster }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      'current-context': 'c',
      ...extra,
    }),
  );
  return file;
}

function write(file: string, content: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

describe('readKubeconfig', () => {
  it('takes the current context: server, inline CA, client certificate and key, TLS server name', () => {
    const file = kubeconfig(
      { server: 'https://api.example:6443', 'certificate-authority-data': b64(CA), 'tls-server-name': 'kubernetes.default.svc' },
      { 'client-certificate-data': b64(CERT), 'client-key-data': b64(KEY) },
    );
    expect(readKubeconfig(file)).toEqual({
      server: 'https://api.example:6443',
      source: `kubeconfig ${file}`,
      ca: Buffer.from(CA),
      insecureSkipTlsVerify: false,
      tlsServerName: 'kubernetes.default.svc',
      clientCertificate: Buffer.from(CERT),
      clientKey: Buffer.from(KEY),
      token: undefined,
    });
  });

  it('reads files relative to the kubeconfig directory (and absolute ones as they are)', () => {
    const dir = path.join(root, 'relative', 'kube');
    write(path.join(root, 'relative', 'ca.pem'), CA);
    write(path.join(dir, 'certs', 'client.pem'), CERT);
    const keyFile = write(path.join(root, 'elsewhere', 'client.key'), KEY);
    write(path.join(dir, 'token'), 'file-token\n');
    const file = kubeconfig(
      { server: 'https://10.0.0.1:443', 'certificate-authority': '../ca.pem', 'insecure-skip-tls-verify': false },
      { 'client-certificate': 'certs/client.pem', 'client-key': keyFile, tokenFile: 'token' },
      { dir },
    );
    const { token, ...settings } = readKubeconfig(file);
    expect(settings).toEqual({
      server: 'https://10.0.0.1:443',
      source: `kubeconfig ${file}`,
      ca: Buffer.from(CA),
      insecureSkipTlsVerify: false,
      tlsServerName: undefined,
      clientCertificate: Buffer.from(CERT),
      clientKey: Buffer.from(KEY),
    });
    expect(token?.current()).toBe('file-token');
  });

  it('prefers -data over the file, and token over tokenFile, as client-go does; reads insecure-skip-tls-verify', () => {
    const file = kubeconfig(
      { server: 'https://h', 'certificate-authority-data': b64(CA), 'certificate-authority': 'missing.pem', 'insecure-skip-tls-verify': true },
      { token: 'inline-token', tokenFile: 'missing-token' },
    );
    const settings = readKubeconfig(file);
    expect([settings.ca, settings.insecureSkipTlsVerify, settings.token?.current()]).toEqual([Buffer.from(CA), true, 'inline-token']);
  });

  it('reads the token file again a minute later, and at once after the API server refused the token', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const dir = path.join(root, 'rotation');
    const tokenFile = write(path.join(dir, 'token'), 'first');
    const { token } = readKubeconfig(kubeconfig({ server: 'https://h' }, { tokenFile: 'token' }, { dir }));
    writeFileSync(tokenFile, 'second');
    expect(token!.current()).toBe('first');
    vi.advanceTimersByTime(60_000);
    expect(token!.current()).toBe('second');
    writeFileSync(tokenFile, 'third');
    expect(token!.current()).toBe('second');
    token!.rejected();
    expect(token!.current()).toBe('third');
    // A token file gone in the middle of a rotation: the last token stays.
    rmSync(tokenFile);
    token!.rejected();
    expect(token!.current()).toBe('third');
  });

  it.each([
    [{ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'gke-gcloud-auth-plugin' } }, 'user "u" uses exec (a credential plugin)'],
    [{ 'auth-provider': { name: 'oidc', config: {} } }, 'user "u" uses auth-provider'],
    [{ username: 'admin', password: 'secret' }, 'user "u" uses username/password (basic auth)'],
    [{ token: 't', as: 'someone' }, 'user "u" uses impersonation (as)'],
  ])('refuses what it cannot do, in one line naming it and ctx.kube, which can: %j', (user, what) => {
    const file = kubeconfig({ server: 'https://h' }, user);
    expect(() => readKubeconfig(file)).toThrow(
      new Error(
        `kubeconfig ${file}: ${what}, which the object cache's API client does not support (ctx.kube, @kubernetes/client-node, does); give it a client certificate or a token (tokenFile)`,
      ),
    );
  });

  it('refuses a proxy-url on the cluster the same way', () => {
    const file = kubeconfig({ server: 'https://h', 'proxy-url': 'http://proxy:3128' }, { token: 't' });
    expect(() => readKubeconfig(file)).toThrow(
      `kubeconfig ${file}: cluster "k" uses proxy-url, which the object cache's API client does not support (ctx.kube, @kubernetes/client-node, does); give it a client certificate or a token (tokenFile)`,
    );
  });

  it('says what is missing: the file, the current context, the cluster, a file it names', () => {
    const missing = path.join(root, 'nope', 'config');
    expect(() => readKubeconfig(missing)).toThrow(new Error(`kubeconfig ${missing}: cannot read it: no such file`));
    const noContext = kubeconfig({ server: 'https://h' }, {}, { extra: { 'current-context': '' } });
    expect(() => readKubeconfig(noContext)).toThrow(new Error(`kubeconfig ${noContext}: no current-context; set one with kubectl config use-context <name>`));
    const otherContext = kubeconfig({ server: 'https://h' }, {}, { extra: { 'current-context': 'other' } });
    expect(() => readKubeconfig(otherContext)).toThrow(new Error(`kubeconfig ${otherContext}: current-context "other" is not among its contexts`));
    const noServer = kubeconfig({}, {});
    expect(() => readKubeconfig(noServer)).toThrow(new Error(`kubeconfig ${noServer}: cluster "k" has no server`));
    const dir = path.join(root, 'missing-ca');
    const missingCa = kubeconfig({ server: 'https://h', 'certificate-authority': 'ca.pem' }, {}, { dir });
    expect(() => readKubeconfig(missingCa)).toThrow(new Error(`kubeconfig ${missingCa}: certificate-authority ${path.join(dir, 'ca.pem')}: no such file`));
    const missingToken = kubeconfig({ server: 'https://h' }, { tokenFile: '/nonexistent/token' });
    expect(() => readKubeconfig(missingToken)).toThrow(new Error(`kubeconfig ${missingToken}: cannot read the token file /nonexistent/token: ENOENT`));
  });
});

describe('inClusterSettings', () => {
  const serviceAccount = path.join(root, 'serviceaccount');
  write(path.join(serviceAccount, 'ca.crt'), CA);
  write(path.join(serviceAccount, 'token'), 'sa-token\n');
  const source = `the in-cluster ServiceAccount (${serviceAccount})`;

  it('reaches the kubernetes Service with the mounted CA and token', () => {
    const { token, ...settings } = inClusterSettings({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccount);
    expect(settings).toEqual({ server: 'https://10.96.0.1:443', source, ca: Buffer.from(CA) });
    expect(token?.current()).toBe('sa-token');
    expect(inClusterSettings({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccount).server).toBe('https://[fd00::1]:443');
  });

  it('says what is missing', () => {
    expect(() => inClusterSettings({}, serviceAccount)).toThrow(
      new Error(`${source}: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set, as the kubelet sets them in a pod; outside a pod, set KUBECONFIG`),
    );
    const empty = path.join(root, 'empty-serviceaccount');
    mkdirSync(empty, { recursive: true });
    expect(() => inClusterSettings({ KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '443' }, empty)).toThrow(
      new Error(`the in-cluster ServiceAccount (${empty}): cannot read ${path.join(empty, 'ca.crt')}: ENOENT`),
    );
  });
});

describe('loadConnectionSettings', () => {
  const serviceAccount = path.join(root, 'sa-for-order');
  write(path.join(serviceAccount, 'ca.crt'), CA);
  write(path.join(serviceAccount, 'token'), 'sa');
  const inCluster = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const home = path.join(root, 'home');
  const homeConfig = kubeconfig({ server: 'https://from-home' }, {}, { dir: path.join(home, '.kube') });

  it('looks where client-node loadFromDefault looks, in its order: KUBECONFIG (its first file), ~/.kube/config, the ServiceAccount', () => {
    const first = kubeconfig({ server: 'https://first' }, {});
    const second = kubeconfig({ server: 'https://second' }, {});
    const load = (env: NodeJS.ProcessEnv, homeDir: string) => loadConnectionSettings({ env, home: homeDir, serviceAccountDir: serviceAccount }).server;
    expect(load({ ...inCluster, KUBECONFIG: `${first}${path.delimiter}${second}` }, home)).toBe('https://first');
    expect(load({ ...inCluster }, home)).toBe('https://from-home');
    expect(path.dirname(homeConfig)).toBe(path.join(home, '.kube'));
    expect(load({ ...inCluster }, path.join(root, 'no-home'))).toBe('https://10.96.0.1:443');
  });

  it('says how to configure it when there is nothing', () => {
    expect(() => loadConnectionSettings({ env: {}, home: path.join(root, 'no-home'), serviceAccountDir: path.join(root, 'no-sa') })).toThrow(
      new Error('no Kubernetes API configuration: set KUBECONFIG, create ~/.kube/config, or run in a pod (its ServiceAccount)'),
    );
  });
});

describe('ApiConnection', () => {
  it('refuses a server that is not an http(s) URL, naming where it came from', () => {
    expect(() => new ApiConnection({ server: 'api.example:6443', source: 'kubeconfig /k' })).toThrow(new Error('kubeconfig /k: server api.example:6443 must be an https:// URL'));
    expect(() => new ApiConnection({ server: 'not a url', source: 'kubeconfig /k' })).toThrow(new Error('kubeconfig /k: server "not a url" is not a URL; expected e.g. https://127.0.0.1:6443'));
  });
});
