/**
 * The object cache against a real kube-apiserver (etcd and kube-apiserver
 * only, no node, no cert-manager): the watch stream, ResourceInformer's
 * list/watch/relist through restarts, revoked access and compaction, the
 * in-cluster token re-read, and the built `shaper-gen serve` with a
 * cache-only webhook never loading @kubernetes/client-node.
 *
 * The informers read as `cache-reader`, a client-certificate user bound to
 * get/list/watch: revoking that binding is how a test keeps an informer from
 * watching while it changes objects behind its back.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { ApiReader, ApiReadError } from '../../runtime/cache/api-reader.js';
import { resourcePath, type CachedResource } from '../../runtime/cache/cached-resource.js';
import { ResourceInformer } from '../../runtime/cache/resource-informer.js';
import { openWatch, ResourceVersionExpired, type WatchEvent } from '../../runtime/cache/watch-stream.js';
import type { KubernetesObject } from '../../runtime/webhook/contract.js';
import { ApiConnection } from '../../runtime/kube/api-connection.js';
import { inClusterSettings } from '../../runtime/kube/in-cluster.js';
import { readKubeconfig } from '../../runtime/kube/kubeconfig.js';
import { rawRequest, startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { builtEntry } from '../../support/built-package.js';
import { waitFor } from '../../support/kindenv/processes.js';
import { REPO_ROOT } from '../support/fixture-project.js';
import { getPlain, serve, ServeDir, sleep, waitReady } from '../support/serve-process.js';

const NS = 'cache-test';
const CONFIGMAPS: CachedResource = { group: '', version: 'v1', resource: 'configmaps' };
// Served without the API server's watch cache (--watch-cache-sizes below): their watches go to etcd, so a
// resourceVersion etcd still has always resumes, and one compacted away is always 410 Gone.
const PODTEMPLATES: CachedResource = { group: '', version: 'v1', resource: 'podtemplates' };
const READER = 'cache-reader';

let cp: ControlPlane;
let dir: string;
let readerKubeconfig: string;
let connection: ApiConnection;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-object-cache-'));
  cp = await startControlPlane({
    dir: path.join(dir, 'control-plane'),
    hostAddress: '127.0.0.1',
    log: (line) => process.stderr.write(`object-cache: ${line}\n`),
    certManager: false,
    // No compaction but the tests' own.
    apiServerArgs: ['--watch-cache-sizes=podtemplates#0', '--etcd-compaction-interval=0'],
  });
  await admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: READER },
    rules: [{ apiGroups: [''], resources: ['configmaps', 'podtemplates'], verbs: ['get', 'list', 'watch'] }],
  });
  await grantReader();

  // The reader's kubeconfig names its files relative to itself.
  const readerDir = path.join(dir, 'reader');
  mkdirSync(path.join(readerDir, 'pki'), { recursive: true });
  const credentials = await cp.ca.issue({ commonName: READER, client: true });
  writeFileSync(path.join(readerDir, 'pki', 'ca.crt'), cp.ca.cert);
  writeFileSync(path.join(readerDir, 'pki', 'reader.crt'), credentials.cert);
  writeFileSync(path.join(readerDir, 'pki', 'reader.key'), credentials.key);
  readerKubeconfig = path.join(readerDir, 'kubeconfig');
  writeFileSync(
    readerKubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server: `https://127.0.0.1:${cp.apiServerPort}`, 'certificate-authority': 'pki/ca.crt' } }],
      users: [{ name: READER, user: { 'client-certificate': 'pki/reader.crt', 'client-key': 'pki/reader.key' } }],
      contexts: [{ name: 'test', context: { cluster: 'test', user: READER } }],
      'current-context': 'test',
    }),
  );
  connection = new ApiConnection(readKubeconfig(readerKubeconfig));
}, 180_000);

afterAll(async () => {
  // Undefined when beforeAll failed before making them.
  (connection as ApiConnection | undefined)?.close();
  await (cp as ControlPlane | undefined)?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the watch stream', () => {
  it('streams complete objects and bookmarks, and ends normally at timeoutSeconds', async () => {
    const { resourceVersion } = await new ApiReader(connection).list(CONFIGMAPS);
    const started = Date.now();
    const events = await openWatch(connection, CONFIGMAPS, resourceVersion, { timeoutSeconds: 6 });
    const created = await admin('POST', resourcePath(CONFIGMAPS, NS), configMap('watched', { value: 'grüße 🚀' }));
    const seen: WatchEvent[] = [];
    for await (const event of events) seen.push(event);

    expect(Date.now() - started).toBeGreaterThan(5000);
    expect(seen[0]).toEqual({ type: 'ADDED', object: created });
    // The API server sends a bookmark 2 s before the watch's deadline: the resourceVersion everything up to has been sent.
    const bookmarks = seen.filter((event) => event.type === 'BOOKMARK');
    expect(bookmarks.length).toBeGreaterThan(0);
    expect(bookmarks[0]!.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(Number(bookmarks[0]!.object.metadata?.resourceVersion)).toBeGreaterThanOrEqual(Number(created.metadata.resourceVersion));
    expect(seen.map((event) => event.type)).toEqual(['ADDED', ...bookmarks.map(() => 'BOOKMARK')]);
  });

  it('fails with ResourceVersionExpired from a resourceVersion the API server no longer has: older than its watch cache, or compacted in etcd', async () => {
    // A fresh API server's watch cache begins near resourceVersion 1, and etcd keeps everything until compacted:
    // only a compaction and a restart (the watch cache begins anew) make resourceVersion 1 too old for both.
    await compactEtcd();
    await cp.restartApiServer();
    const failure = (resource: CachedResource) =>
      openWatch(connection, resource, '1', { timeoutSeconds: 10 })
        .then(consume)
        .then(
          (events) => events,
          (error: unknown) => error,
        );
    const [cached, fromEtcd] = [await failure(CONFIGMAPS), await failure(PODTEMPLATES)];
    expect(cached).toBeInstanceOf(ResourceVersionExpired);
    expect((cached as Error).message).toMatch(/^watch configmaps from resourceVersion 1: 410 too old resource version: 1 \(\d+\)$/);
    expect(fromEtcd).toBeInstanceOf(ResourceVersionExpired);
    expect((fromEtcd as Error).message).toBe('watch podtemplates from resourceVersion 1: 410 The resourceVersion for the provided watch is too old.');
  }, 60_000);
});

describe('ResourceInformer', () => {
  it('lists every ConfigMap, then follows creations, updates and deletions by watch alone, reopening each ended watch from its resourceVersion', async () => {
    for (const name of ['alpha', 'beta', 'gamma']) await admin('POST', resourcePath(CONFIGMAPS, NS), configMap(name, { name }));
    const log = capturedLog();
    const informer = new ResourceInformer(CONFIGMAPS, connection, log.logger, { watchTimeoutSeconds: 2 });
    informer.start();
    try {
      await waitFor('the ConfigMap informer to sync', () => informer.isFresh || undefined, 30_000);
      expect(informer.hasSynced).toBe(true);
      expect(informer.problem).toBeUndefined();
      expect(byKey(informer.list())).toEqual(await apiObjects(CONFIGMAPS));
      expect(byKey(informer.list(NS))).toEqual(await apiObjects(CONFIGMAPS, NS));

      await admin('POST', resourcePath(CONFIGMAPS, NS), configMap('delta', { name: 'delta' }));
      await admin('PUT', resourcePath(CONFIGMAPS, NS, 'alpha'), {
        ...configMap('alpha', { name: 'alpha', changed: 'yes' }),
        metadata: { name: 'alpha', namespace: NS, labels: { tier: 'gold' } },
      });
      await admin('DELETE', resourcePath(CONFIGMAPS, NS, 'beta'));
      await expectSameObjects(informer, CONFIGMAPS);
      expect(informer.get(NS, 'alpha')).toEqual(withoutManagedFields(await admin('GET', resourcePath(CONFIGMAPS, NS, 'alpha'))));
      expect(informer.get(NS, 'beta')).toBeUndefined();

      // Past a few 2 s watches: each reopened from where it was, nothing listed again.
      await sleep(5000);
      await admin('POST', resourcePath(CONFIGMAPS, NS), configMap('epsilon', { name: 'epsilon' }));
      await expectSameObjects(informer, CONFIGMAPS);
      expect(log.messages().filter((message) => message === 'cache watch ended; reopening it').length).toBeGreaterThanOrEqual(2);
      expect(log.messages().filter((message) => message !== 'cache watch ended; reopening it')).toEqual(['cache synced']);
    } finally {
      await informer.stop();
    }
  });

  it('moves its resourceVersion on with bookmarks: a reopened watch starts past changes to other resources', async () => {
    const log = capturedLog();
    const informer = new ResourceInformer(CONFIGMAPS, connection, log.logger, { watchTimeoutSeconds: 5 });
    informer.start();
    try {
      await waitFor('the ConfigMap informer to sync', () => informer.isFresh || undefined, 30_000);
      const listed = log.lines.length;
      // Not a ConfigMap: the watch has no event for it, only bookmarks can carry its resourceVersion. A consistent
      // list of ConfigMaps makes the API server's watch cache catch up with etcd first.
      const other = await admin('POST', resourcePath(PODTEMPLATES, NS), podTemplate('bookmarked', 'one'));
      await admin('GET', resourcePath(CONFIGMAPS));
      const ended = await waitFor(
        'a watch to end after a bookmark',
        () => log.lines.slice(listed).find((line) => line.msg === 'cache watch ended; reopening it' && Number(line.resourceVersion) >= Number(other.metadata.resourceVersion)),
        30_000,
      );
      expect(ended.events).toBeGreaterThanOrEqual(1);
      await expectSameObjects(informer, CONFIGMAPS);
      expect(log.messages().filter((message) => message !== 'cache watch ended; reopening it')).toEqual(['cache synced']);
    } finally {
      await informer.stop();
    }
  });

  it('reopens a watch silent past its idle timeout at once, staying fresh', async () => {
    const log = capturedLog();
    // PodTemplates have no watch cache here, hence no bookmarks: a quiet watch is silent.
    const informer = new ResourceInformer(PODTEMPLATES, connection, log.logger, { watchIdleSeconds: 2 });
    informer.start();
    try {
      await waitFor('the PodTemplate informer to sync', () => informer.isFresh || undefined, 30_000);
      const freshness: boolean[] = [];
      const sampling = setInterval(() => freshness.push(informer.isFresh), 100);
      await waitFor('two silent watches', () => (log.messages().filter((message) => message.startsWith('cache watch silent')).length >= 2 ? true : undefined), 20_000);
      clearInterval(sampling);
      expect(freshness.every(Boolean)).toBe(true);
      await admin('POST', resourcePath(PODTEMPLATES, NS), podTemplate('after-silence', 'one'));
      await expectSameObjects(informer, PODTEMPLATES);
      expect(log.messages().filter((message) => !message.startsWith('cache watch silent'))).toEqual(['cache synced']);
      expect(log.messages().find((message) => message.startsWith('cache watch silent'))).toBe('cache watch silent (no data from the API server for 2 s); reopening it');
    } finally {
      await informer.stop();
    }
  });

  it('survives an API server restart: reopens its watch and sees what changed while it could not watch', async () => {
    for (const name of ['restart-a', 'restart-b']) await admin('POST', resourcePath(CONFIGMAPS, NS), configMap(name, { name }));
    for (const name of ['pt-a', 'pt-b']) await admin('POST', resourcePath(PODTEMPLATES, NS), podTemplate(name, 'one'));
    const configMaps = { log: capturedLog() } as { log: ReturnType<typeof capturedLog>; informer: ResourceInformer };
    const podTemplates = { log: capturedLog() } as typeof configMaps;
    configMaps.informer = new ResourceInformer(CONFIGMAPS, connection, configMaps.log.logger);
    podTemplates.informer = new ResourceInformer(PODTEMPLATES, connection, podTemplates.log.logger);
    const both = [configMaps, podTemplates];
    for (const { informer } of both) informer.start();
    try {
      await waitFor('both informers to sync', () => both.every(({ informer }) => informer.isFresh) || undefined, 30_000);

      await revokeReader();
      await cp.restartApiServer();
      // Its watches broke with the restart; reopening them is refused now.
      await waitFor('both informers to be refused', () => both.every(({ informer }) => (informer.problem ?? '').includes('HTTP 403')) || undefined, 60_000);
      expect(both.map(({ informer }) => [informer.isFresh, informer.problem])).toEqual([
        [
          false,
          expect.stringMatching(
            /^watch interrupted: watch configmaps from resourceVersion \d+: HTTP 403: configmaps is forbidden: User "cache-reader" cannot watch resource "configmaps" in API group "" at the cluster scope$/,
          ),
        ],
        [
          false,
          expect.stringMatching(
            /^watch interrupted: watch podtemplates from resourceVersion \d+: HTTP 403: podtemplates is forbidden: User "cache-reader" cannot watch resource "podtemplates" in API group "" at the cluster scope$/,
          ),
        ],
      ]);
      const held = both.map(({ informer }) => byKey(informer.list(NS)));
      await admin('POST', resourcePath(CONFIGMAPS, NS), configMap('while-down', { name: 'while-down' }));
      await admin('PUT', resourcePath(CONFIGMAPS, NS, 'restart-a'), configMap('restart-a', { name: 'restart-a', changed: 'while down' }));
      await admin('DELETE', resourcePath(CONFIGMAPS, NS, 'restart-b'));
      await admin('POST', resourcePath(PODTEMPLATES, NS), podTemplate('pt-c', 'one'));
      await admin('PUT', resourcePath(PODTEMPLATES, NS, 'pt-a'), podTemplate('pt-a', 'two'));
      await admin('DELETE', resourcePath(PODTEMPLATES, NS, 'pt-b'));
      await sleep(1000);
      expect(both.map(({ informer }) => byKey(informer.list(NS)))).toEqual(held);

      await grantReader();
      await waitFor('both informers to watch again', () => both.every(({ informer }) => informer.isFresh) || undefined, 30_000);
      await expectSameObjects(configMaps.informer, CONFIGMAPS);
      await expectSameObjects(podTemplates.informer, PODTEMPLATES);
      expect([configMaps.informer.get(NS, 'restart-b'), podTemplates.informer.get(NS, 'pt-b')]).toEqual([undefined, undefined]);
      for (const { log } of both) {
        expect(log.messages()[0]).toBe('cache synced');
        expect(log.messages().at(-1)).toBe('cache watch re-established');
      }
      // etcd still had the podtemplates' resourceVersion: the watch resumed from it, nothing was listed again.
      // (The ConfigMaps' watch cache began after it, at the restart: they may have relisted.)
      expect(podTemplates.log.messages().filter((message) => message.startsWith('cache relisting'))).toEqual([]);
    } finally {
      await Promise.all(both.map(({ informer }) => informer.stop()));
    }
  }, 180_000);

  it('relists on 410 Gone (its resourceVersion compacted away) and ends with exactly the objects that exist', async () => {
    for (const name of ['gone-a', 'gone-b']) await admin('POST', resourcePath(PODTEMPLATES, NS), podTemplate(name, 'one'));
    const log = capturedLog();
    const informer = new ResourceInformer(PODTEMPLATES, connection, log.logger, { watchTimeoutSeconds: 3 });
    informer.start();
    try {
      await waitFor('the PodTemplate informer to sync', () => informer.isFresh || undefined, 30_000);
      const seeded = await apiObjects(PODTEMPLATES);
      expect(byKey(informer.list())).toEqual(seeded);

      // Its watch ends within 3 s; reopening it is refused.
      await revokeReader();
      await waitFor('the informer to be refused', () => ((informer.problem ?? '').includes('HTTP 403') ? true : undefined), 30_000);
      await admin('POST', resourcePath(PODTEMPLATES, NS), podTemplate('gone-c', 'one'));
      await admin('PUT', resourcePath(PODTEMPLATES, NS, 'gone-b'), podTemplate('gone-b', 'two'));
      await admin('DELETE', resourcePath(PODTEMPLATES, NS, 'gone-a'));
      await compactEtcd();
      expect(byKey(informer.list())).toEqual(seeded);

      await grantReader();
      await waitFor('the informer to watch again', () => informer.isFresh || undefined, 30_000);
      await expectSameObjects(informer, PODTEMPLATES);
      // gone-a's deletion was compacted away with its event: only the relist's replacement can have removed it.
      expect(informer.get(NS, 'gone-a')).toBeUndefined();
      expect(log.messages().filter((message) => message.startsWith('cache relisting'))).toEqual([expect.stringMatching(/^cache relisting: watch podtemplates from resourceVersion \d+: 410 /)]);
      expect(log.messages().at(-1)).toBe('cache watch re-established');
    } finally {
      await informer.stop();
    }
  }, 120_000);
});

describe('the in-cluster connection', () => {
  it('reads the ServiceAccount token file again after a 401, so a rotated token is used at once', async () => {
    const account = 'cache-reader-sa';
    await admin('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } });
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: account },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: READER },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace: NS }],
    });
    const tokenRequest = await admin('POST', `/api/v1/namespaces/${NS}/serviceaccounts/${account}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    });
    const serviceAccountDir = path.join(dir, 'serviceaccount');
    mkdirSync(serviceAccountDir, { recursive: true });
    writeFileSync(path.join(serviceAccountDir, 'ca.crt'), cp.ca.cert);
    writeFileSync(path.join(serviceAccountDir, 'token'), 'an-expired-token');

    const inCluster = new ApiConnection(inClusterSettings({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(cp.apiServerPort) }, serviceAccountDir));
    try {
      const reader = new ApiReader(inCluster);
      await expect(reader.list(CONFIGMAPS, NS)).rejects.toThrow(new ApiReadError(401, 'list configmaps: HTTP 401: Unauthorized'));
      writeFileSync(path.join(serviceAccountDir, 'token'), `${tokenRequest.status.token}\n`);
      expect(byKey((await reader.list(CONFIGMAPS, NS)).items)).toEqual(await apiObjects(CONFIGMAPS, NS, { keepManagedFields: true }));
    } finally {
      inCluster.close();
    }
  });
});

describe('shaper-gen serve with a cache-only webhook', () => {
  it('answers from its informer and never loads @kubernetes/client-node', async () => {
    const serveDir = await ServeDir.create();
    try {
      const handlers = path.join(serveDir.dir, 'cache-handlers.mjs');
      writeFileSync(
        handlers,
        `import { Denied, Webhook } from ${JSON.stringify(builtEntry())};
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
export class RequiresConfigMap {
  async validateCreate(obj, ctx) {
    const required = obj.metadata?.annotations?.['example.io/requires'];
    if (required && !(await ctx.cache.get(configmaps, obj.metadata.namespace, required))) throw Denied(\`ConfigMap \${required} does not exist\`);
  }
}
Webhook({ path: '/validate-requires', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }], cache: [configmaps] })(RequiresConfigMap);
export const webhooks = [RequiresConfigMap];
`,
      );
      // Every module the process loads, imported or required, one URL a line.
      const loadedFile = path.join(serveDir.dir, 'loaded-modules.txt');
      const hook = path.join(serveDir.dir, 'record-loads.mjs');
      writeFileSync(
        hook,
        `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({ load(url, context, nextLoad) { appendFileSync(${JSON.stringify(loadedFile)}, url + '\\n'); return nextLoad(url, context); } });
`,
      );
      const config = await serveDir.writeConfig({ handlers: [handlers], expectedPaths: ['/validate-requires'] });
      const server = serve(['--config', config.file], { nodeOptions: `--import ${pathToFileURL(hook).href}`, env: { KUBECONFIG: readerKubeconfig } });
      try {
        expect(await waitReady(config.health, server)).toContain('[+]cache ok');
        const review = (requires: string) =>
          admissionReview({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: NS, annotations: { 'example.io/requires': requires } } } });
        expect((await serveDir.post(config.port, '/validate-requires', review('alpha'))).json.response).toMatchObject({ allowed: true });
        expect((await serveDir.post(config.port, '/validate-requires', review('nowhere'))).json.response).toMatchObject({
          allowed: false,
          status: { message: 'ConfigMap nowhere does not exist' },
        });
        const metrics = (await getPlain(config.metrics, '/metrics')).text;
        expect(metrics).toContain('shaper_webhook_cache_reads_total{resource="configmaps",source="cache"} 1');
        expect(metrics).toContain('shaper_webhook_cache_reads_total{resource="configmaps",source="miss"} 1');
      } finally {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      const loaded = readFileSync(loadedFile, 'utf8').trim().split('\n');
      const distUrl = pathToFileURL(path.join(REPO_ROOT, 'dist')).href;
      // The hook saw the server's own modules (the bundle's entry point; the informer answered, the metrics above say).
      expect(loaded).toContain(`${distUrl}/bin/shaper-gen.js`);
      // The package the server would load: its entry point's package directory.
      const clientNode = pathToFileURL(path.dirname(path.dirname(createRequire(import.meta.url).resolve('@kubernetes/client-node')))).href;
      expect(clientNode).toMatch(/\/node_modules\/@kubernetes\/client-node$/);
      expect(loaded.filter((url) => url.startsWith(`${clientNode}/`))).toEqual([]);
    } finally {
      serveDir.remove();
    }
  }, 60_000);
});

/** A request as the cluster admin; fails on anything but 2xx. */
async function admin(method: string, urlPath: string, body?: unknown): Promise<any> {
  const res = await rawRequest(cp.apiServerPort, method, urlPath, cp.ca.cert, cp.admin, body === undefined ? undefined : JSON.stringify(body));
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${urlPath}: HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body;
}

async function grantReader(): Promise<void> {
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: READER },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: READER },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: READER }],
  });
}

async function revokeReader(): Promise<void> {
  await admin('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${READER}`);
}

/** Compacts etcd's history up to now (its JSON gateway; no etcdctl): watches from before are 410 Gone. */
async function compactEtcd(): Promise<void> {
  const post = async (urlPath: string, body: unknown) => {
    const res = await fetch(`${cp.etcdUrl}${urlPath}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`etcd ${urlPath}: HTTP ${res.status}: ${await res.text()}`);
    return (await res.json()) as { header: { revision: string } };
  };
  const { header } = await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
  await post('/v3/kv/compaction', { revision: header.revision, physical: true });
}

function configMap(name: string, data: Record<string, string>): KubernetesObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data };
}

function podTemplate(name: string, version: string): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name, namespace: NS, labels: { version } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: `example.io/app:${version}` }] } },
  };
}

/** Every object of the resource as the API server lists it now, with apiVersion and kind, without managedFields (as the cache holds them), by namespace/name. */
async function apiObjects(resource: CachedResource, namespace?: string, { keepManagedFields = false } = {}): Promise<Record<string, KubernetesObject>> {
  const list = await admin('GET', resourcePath(resource, namespace));
  const kind = (list.kind as string).replace(/List$/, '');
  return byKey((list.items as KubernetesObject[]).map((item) => ({ apiVersion: list.apiVersion, kind, ...(keepManagedFields ? item : withoutManagedFields(item)) })));
}

function withoutManagedFields(object: KubernetesObject): KubernetesObject {
  const { managedFields: _, ...metadata } = object.metadata as Record<string, unknown>;
  return { ...object, metadata };
}

function byKey(objects: KubernetesObject[]): Record<string, KubernetesObject> {
  return Object.fromEntries(objects.map((object) => [`${object.metadata?.namespace ?? ''}/${object.metadata?.name}`, object]));
}

/** Waits until the informer holds exactly what the API server lists (the watch's delivery delay), then compares once more for the report. */
async function expectSameObjects(informer: ResourceInformer, resource: CachedResource): Promise<void> {
  await waitFor(
    `the ${resource.resource} informer to hold what the API server lists`,
    async () => (isDeepStrictEqual(byKey(informer.list()), await apiObjects(resource)) ? true : undefined),
    20_000,
  ).catch(() => undefined);
  expect(byKey(informer.list())).toEqual(await apiObjects(resource));
}

function capturedLog() {
  const lines: { msg: string; [key: string]: unknown }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines, messages: () => lines.map((line) => line.msg) };
}

async function consume(events: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  const seen: WatchEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}
