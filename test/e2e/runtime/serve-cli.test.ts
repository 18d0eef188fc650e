/**
 * The built `shaper-gen serve` as the container runs it: config file, cert dir,
 * the sample's generated handlers module, readiness, admission, SIGTERM drain.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { request } from '../../support/admission-server.js';
import { builtEntry } from '../../../support/built-package.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { freePort } from '../../../support/free-port.js';
import { getPlain, OFFLINE_SAMPLE_PATHS, serve, ServeDir, sleep, waitReady } from '../../support/serve-process.js';

let dir: ServeDir;
beforeAll(async () => {
  dir = await ServeDir.create();
});
afterAll(() => dir.remove());

describe('shaper-gen serve', () => {
  it('serves the sample webhooks from its config, becomes ready, answers, and drains on SIGTERM', async () => {
    const config = await dir.writeConfig();
    const server = serve(['--config', config.file]);
    try {
      expect(await waitReady(config.health, server)).toContain('readyz check passed');
      const review = admissionReview({ object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'a' }, spec: {} } });
      const res = await dir.post(config.port, '/mutate-profile?timeout=5s', review);
      expect(res.json.response).toMatchObject({ uid: review.request!.uid, allowed: true, patchType: 'JSONPatch' });
      const metrics = await getPlain(config.metrics, '/metrics');
      expect(metrics.text).toContain('shaper_webhook_requests_total{webhook="/mutate-profile",operation="CREATE",allowed="true",code="200"} 1');
      expect(metrics.text).toMatch(/^process_resident_memory_bytes \d+$/m);
      expect(metrics.text).not.toContain('nodejs_gc_duration_seconds');

      server.child.kill('SIGTERM');
      await sleep(300);
      expect((await getPlain(config.health, '/readyz')).status).toBe(503);
      expect(await server.exited).toBe(0);
      expect(server.logs().map((line) => line.msg)).toEqual(expect.arrayContaining(['serving certificate loaded', 'serving 3 webhooks', 'shutting down: unready, draining', 'stopped']));
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('serves nodejs_gc_duration_seconds when metrics.gcDurations asks for it', async () => {
    const config = await dir.writeConfig({ metricsExtra: 'gcDurations: true' });
    const server = serve(['--config', config.file]);
    try {
      await waitReady(config.health, server);
      // Once listening, serve gives back its start-up heap with one full collection.
      const metrics = await getPlain(config.metrics, '/metrics');
      expect(metrics.text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
      expect(Number(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\d+)$/m.exec(metrics.text)?.[1])).toBeGreaterThan(0);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('stays unready, naming the resource and the cause, while a cached resource cannot be listed', async () => {
    const config = await dir.writeConfig({ handlers: ['dist/sample/webhooks.generated.js'], expectedPaths: [...OFFLINE_SAMPLE_PATHS, '/validate-assignment'] });
    // A cluster nobody listens at: the Profile informer's list is refused.
    const kubeconfig = path.join(dir.dir, 'unreachable-kubeconfig');
    const port = await freePort();
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`,
    );
    const server = serve(['--config', config.file], { env: { KUBECONFIG: kubeconfig } });
    try {
      const text = await readyzOnceItSays(config.health, 'cache failed: profiles.shaper.io not synced: ');
      expect(text).toMatch(/^\[-\]cache failed: profiles\.shaper\.io not synced: connect ECONNREFUSED 127\.0\.0\.1:\d+$/m);
      expect(text.endsWith('readyz check failed\n')).toBe(true);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('stays unready, naming the path, when the chart expects a webhook the handlers do not serve', async () => {
    const config = await dir.writeConfig();
    writeFileSync(config.file, readFileSync(config.file, 'utf8').replace('expectedPaths: [', 'expectedPaths: [/validate-pod, '));
    const server = serve(['--config', config.file]);
    try {
      const text = await readyzOnceItSays(config.health, 'handlers failed');
      expect(text).toContain('[-]handlers failed: no handler registered for /validate-pod');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('exits 1 with file:line:col for a bad config, and names a handlers module that cannot load', async () => {
    const bad = path.join(dir.dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: shaper-gen.io/v1alpha1\nkind: ServerConfig\nwebhook:\n  prot: 9443\n');
    const first = serve(['--config', bad]);
    expect(await first.exited).toBe(1);
    expect(first.output()).toMatch(
      new RegExp(`^shaper-gen serve: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:3: webhook\\.prot: unknown key; did you mean "port"\\? expected one of [^\\n]+\\n$`),
    );

    const missing = serve(['--handlers', './nope/handlers.js', '--cert-dir', dir.dir, '--port', '0', '--health-port', '0', '--metrics-port', '0']);
    expect(await missing.exited).toBe(1);
    expect(missing.output()).toBe(`shaper-gen serve: handlers module ./nope/handlers.js: no such file (in ${process.cwd()}; run npm run build, or fix --handlers / handlers in the config)\n`);
  });

  it('refuses to start, in one line, when a webhook declares rbac (ctx.kube) and @kubernetes/client-node is not installed', async () => {
    // What an image built without client-node has: a resolve hook makes the package not found, as it would be.
    const hide = path.join(dir.dir, 'without-client-node.mjs');
    writeFileSync(
      hide,
      `import { registerHooks } from 'node:module';
registerHooks({ resolve(specifier, context, next) {
  if (specifier === '@kubernetes/client-node') throw Object.assign(new Error("Cannot find module '@kubernetes/client-node'"), { code: 'MODULE_NOT_FOUND' });
  return next(specifier, context);
} });
`,
    );
    const handlers = path.join(dir.dir, 'uses-kube.mjs');
    const runtime = JSON.stringify(builtEntry());
    writeFileSync(
      handlers,
      `import { Webhook } from ${runtime};
export class UsesTheApi { validateCreate() {} }
Webhook({ path: '/validate-uses-api', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }], rbac: [{ groups: [''], resources: ['configmaps'], verbs: ['get'] }] })(UsesTheApi);
export const webhooks = [UsesTheApi];
`,
    );
    const { devDependencies } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const server = serve(['--dev', '--port', '0', '--health-port', '0', '--metrics-port', '0', '--handlers', handlers], { nodeOptions: `--import ${pathToFileURL(hide).href}` });
    expect(await server.exited).toBe(1);
    expect(server.output()).toBe(
      `shaper-gen serve: /validate-uses-api declares rbac, the access ctx.kube uses; ctx.kube needs @kubernetes/client-node, which is not installed: add it to the project's dependencies (npm install @kubernetes/client-node@${devDependencies['@kubernetes/client-node']}), not devDependencies, so that the image has it\n`,
    );
  });

  it.each([
    [['--handlers', 'dist/nope.js'], `shaper-gen serve: handlers module dist/nope.js: no such file (in ${process.cwd()}; run npm run build, or fix --handlers / handlers in the config)\n`],
    [
      ['--handlers', 'sample/webhooks.generated.ts'],
      /^shaper-gen serve: cannot import handlers module sample\/webhooks\.generated\.ts: .+; compile it first \(npm run build\) and pass the \.js file, e\.g\. sample\/webhooks\.generated\.js\n$/,
    ],
    [[], `shaper-gen serve: handlers module dist/webhooks.generated.js: no such file (in ${process.cwd()}; run npm run build, or fix --handlers / handlers in the config)\n`],
    [['--log-level', 'loud'], 'shaper-gen serve: --log-level: must be one of trace, debug, info, warn, error, fatal\n'],
    [['--port', '99999'], 'shaper-gen serve: --port: must be an integer from 0 to 65535\n'],
    [['--health-port', 'x'], 'shaper-gen serve: --health-port: must be an integer from 0 to 65535\n'],
    [['--metrics-port', '-1'], 'shaper-gen serve: --metrics-port: must be an integer from 0 to 65535\n'],
    [['--workers', '0'], 'shaper-gen serve: --workers: must be an integer from 1 to 64\n'],
    [['--workers', '1.5'], 'shaper-gen serve: --workers: must be an integer from 1 to 64\n'],
    [['--workers', '2', '--log-level', 'LOUD'], 'shaper-gen serve: --log-level: must be one of trace, debug, info, warn, error, fatal\n'],
    [
      ['--port', '70000', '--log-level', 'loud'],
      'shaper-gen serve: --port: must be an integer from 0 to 65535\nshaper-gen serve: --log-level: must be one of trace, debug, info, warn, error, fatal\n',
    ],
    [['--config', '/nonexistent/server.yaml'], 'shaper-gen serve: cannot read config file /nonexistent/server.yaml: no such file\n'],
    [['--handlers', 'dist/sample/webhooks.generated.js', '--objects', '/nonexistent/objects.yaml'], 'shaper-gen serve: objects file /nonexistent/objects.yaml: no such file\n'],
    [['--handlers', 'dist/sample/webhooks.generated.js', '--objects', 'package.json'], 'shaper-gen serve: objects file package.json: name must be a list of objects\n'],
  ])('says in one line what is wrong with %j and how to fix it', async (args, message) => {
    const server = serve(['--dev', '--port', '0', '--health-port', '0', '--metrics-port', '0', ...args]);
    expect(await server.exited).toBe(1);
    if (typeof message === 'string') expect(server.output()).toBe(message);
    else expect(server.output()).toMatch(message);
  });

  it('refuses --objects without --dev: in a cluster ctx.cache reads the API server', async () => {
    const server = serve(['--objects', 'sample/dev-objects.yaml']);
    expect([await server.exited, server.output()]).toEqual([1, 'shaper-gen serve: --objects needs --dev: in a cluster, ctx.cache reads the API server\n']);
  });

  it("serves the demo as scripts/demo runs it: every sample webhook ready, the Assignment validator's Profiles from sample/dev-objects.yaml, no error", async () => {
    const [port, health, metrics] = [await freePort(), await freePort(), await freePort()];
    const server = serve([
      '--dev',
      '--handlers',
      'dist/sample/webhooks.generated.js',
      '--objects',
      'sample/dev-objects.yaml',
      '--port',
      String(port),
      '--health-port',
      String(health),
      '--metrics-port',
      String(metrics),
    ]);
    try {
      expect(await waitReady(health, server)).toBe('[+]shutdown ok\n[+]certificate ok\n[+]handlers ok\n[+]webhook-listener ok\nreadyz check passed\n');
      const post = (webhookPath: string, body: string) =>
        request(
          https,
          {
            host: '127.0.0.1',
            port,
            path: webhookPath,
            method: 'POST',
            rejectUnauthorized: false,
            agent: false,
            headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
          },
          body,
        );
      const missingProfile = readFileSync(path.join(REPO_ROOT, 'sample/requests/create-assignment.json'), 'utf8');
      const existingProfile = missingProfile.replace('"name": "platinum"', '"name": "gold"');
      expect((await post('/validate-assignment', missingProfile)).json.response).toEqual({
        uid: '9c1e7d2a-6393-11e8-b7cc-42010a800002',
        allowed: false,
        status: {
          metadata: {},
          status: 'Failure',
          code: 422,
          reason: 'Invalid',
          message: 'Assignment.shaper.io "web-gold" is invalid: spec.profileRef.name: Not found: "platinum": Profile "platinum" does not exist in namespace "team-a"',
          details: {
            name: 'web-gold',
            group: 'shaper.io',
            kind: 'Assignment',
            causes: [{ reason: 'FieldValueNotFound', message: 'Not found: "platinum": Profile "platinum" does not exist in namespace "team-a"', field: 'spec.profileRef.name' }],
          },
        },
      });
      expect((await post('/validate-assignment', existingProfile)).json.response).toEqual({ uid: '9c1e7d2a-6393-11e8-b7cc-42010a800002', allowed: true });
      expect(server.output()).not.toMatch(/error|\n\s+at /i);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('--dev serves on loopback with an in-memory certificate and prints where', async () => {
    const port = await freePort();
    const server = serve(['--dev', '--handlers', 'dist/sample/webhooks.generated.js', '--port', String(port), '--health-port', '0', '--metrics-port', '0']);
    try {
      const until = Date.now() + 20_000;
      while (!server.output().includes('shaper-gen serve --dev:') && Date.now() < until) await sleep(100);
      expect(server.output()).toContain(`shaper-gen serve --dev: https://localhost:${port}`);
      const body = JSON.stringify(admissionReview({ object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p' }, spec: { priority: 5000 } } }));
      const res = await request(
        https,
        {
          host: '127.0.0.1',
          port,
          path: '/validate-profile',
          method: 'POST',
          rejectUnauthorized: false,
          agent: false,
          headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
        },
        body,
      );
      expect(res.json.response.status.message).toContain('spec.priority: Invalid value: 5000');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

/** /readyz's text once it contains `expected`, or the last text read after 20 s. */
async function readyzOnceItSays(healthPort: number, expected: string): Promise<string> {
  const until = Date.now() + 20_000;
  let text = '';
  while (Date.now() < until && !text.includes(expected)) {
    text = (await getPlain(healthPort, '/readyz').catch(() => ({ text: '' }))).text;
    await sleep(100);
  }
  return text;
}
