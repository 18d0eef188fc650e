/**
 * From `npm install shaper-gen` and `npm install --save-dev @shaper-gen/generator`
 * to a chart, as a user in their own repository: the packed packages installed
 * into a fresh npm project outside this checkout,
 * `shaper-gen init`, a webhook for a core resource typed with
 * @kubernetes/client-node, then the user's own scripts, helm lint and template.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import https from 'node:https';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { request } from '../../support/admission-server.js';
import { freePort } from '../../../support/free-port.js';
import { findObject, helmLint, helmTemplate } from '../../support/helm.js';
import { until } from '../../support/serve-process.js';
import { createUserProject, GENERATOR_PACKAGE, RUNTIME_PACKAGE, type UserProject } from '../../support/user-project.js';

const NAME = 'team-guard';
const POLICY_NAME = 'config-map-team-policy';
let project: string;
let user: UserProject;
let runtimeTarball: string;
let generatorTarball: string;
const sh = (command: string, args: string[]) => user.sh(command, args);

const SECRET_VALIDATOR = `import type { V1Namespace, V1Secret } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import { Forbidden, Webhook, type AdmissionContext, type CustomValidator } from 'shaper-gen';

@Webhook({
  path: '/validate-secret',
  mutating: false,
  rules: [{ groups: [''], versions: ['v1'], resources: ['secrets'], operations: ['DELETE'], scope: 'Namespaced' }],
  objectSelector: { matchLabels: { 'team-guard.example.com/protected': 'true' } },
  rbac: [{ groups: [''], resources: ['namespaces'], verbs: ['get'] }],
})
export class SecretValidator implements CustomValidator<V1Secret> {
  async validateDelete(secret: V1Secret, ctx: AdmissionContext): Promise<void> {
    const namespace: V1Namespace = await ctx.kube.api(CoreV1Api).readNamespace({ name: secret.metadata!.namespace! });
    if (namespace.status?.phase !== 'Terminating') throw Forbidden('protected Secrets go with their namespace only');
  }
}
`;

beforeAll(async () => {
  user = await createUserProject(NAME);
  project = user.dir;
  runtimeTarball = user.packed[RUNTIME_PACKAGE].filename;
  generatorTarball = user.packed[GENERATOR_PACKAGE].filename;
}, 300_000);
afterAll(() => (user as UserProject | undefined)?.remove());

describe('the published packages', () => {
  it('hold what users run and nothing else: no sample, tests, source maps or source-only exports', () => {
    // The runtime's code is the bundle (scripts/bundle-runtime.ts); dist/runtime/ holds its type declarations alone.
    const runtimeFiles = /^(dist\/bin\/shaper-gen\.js$|dist\/package\/|dist\/chunks\/|dist\/runtime\/.*\.d\.ts$|package\.json$|README\.md$|LICENSE$)/;
    expect(user.packed[RUNTIME_PACKAGE].files.filter((file) => !runtimeFiles.test(file))).toEqual([]);
    expect(user.packed[GENERATOR_PACKAGE].files.filter((file) => !/^(dist\/|kubernetes-schemas\/|templates\/|scaffold\/|package\.json$|README\.md$|LICENSE$)/.test(file))).toEqual([]);
    for (const { files } of Object.values(user.packed)) {
      expect(files.filter((file) => !file.startsWith('scaffold/') && /\.map$|\.test\.|(^|\/)sample\//.test(file))).toEqual([]);
    }
    for (const [name, dir] of [
      [RUNTIME_PACKAGE, REPO_ROOT],
      [GENERATOR_PACKAGE, path.join(REPO_ROOT, 'generator')],
    ] as const) {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
      for (const [subpath, targets] of Object.entries(manifest.exports)) {
        if (typeof targets === 'string') continue;
        expect(Object.keys(targets), subpath).toEqual(['types', 'default']);
        for (const target of Object.values(targets)) expect(user.packed[name].files, `${name} ${subpath} → ${target}`).toContain(target.replace(/^\.\//, ''));
      }
    }
  });

  it("keep the generator's packages out of shaper-gen's package.json: they are the generator's own dependencies", () => {
    const installed = (name: string) => JSON.parse(readFileSync(path.join(project, 'node_modules', name, 'package.json'), 'utf8')) as Record<string, any>;
    const runtime = installed(RUNTIME_PACKAGE);
    const generator = installed(GENERATOR_PACKAGE);
    const source = JSON.parse(readFileSync(path.join(REPO_ROOT, 'generator/package.json'), 'utf8')) as Record<string, any>;
    expect(['ts-morph', '@ts-morph/common', 'handlebars', '@marcbachmann/cel-js'].filter((name) => JSON.stringify(runtime).includes(`"${name}"`))).toEqual([]);
    expect(Object.keys(runtime).filter((key) => /peer/i.test(key))).toEqual([]);
    expect(generator.version).toBe(runtime.version);
    expect(Object.keys(generator.dependencies).sort()).toEqual(['@marcbachmann/cel-js', 'fast-check', 'handlebars', 'tinyglobby', 'ts-morph', 'yaml']);
    expect({ dependencies: generator.dependencies, peerDependencies: generator.peerDependencies }).toEqual({
      dependencies: source.dependencies,
      peerDependencies: { [RUNTIME_PACKAGE]: runtime.version },
    });
  });
});

describe('shaper-gen init in a fresh npm project', () => {
  it('writes the project, vendors the two tarballs it was installed from, installs it and generates the chart', () => {
    expect(user.initOutput).toContain(`for chart "${NAME}"`);
    expect(user.initOutput).toContain(`wrote charts/${NAME}/templates/validating-webhook-configuration.yaml`);
    expect(user.initOutput).toContain(`wrote charts/${NAME}/templates/validating-admission-policies.yaml`);
    expect(user.initOutput).toContain('shaper-gen: 2 webhooks and 1 policy from');
    expect(user.initOutput.split('\n').filter((line) => line.includes('build context'))).toEqual([
      `  package.json: dependencies.${RUNTIME_PACKAGE} is now file:vendor/${runtimeTarball}, a copy of file:../${runtimeTarball} inside the image's build context`,
      `  package.json: devDependencies.${GENERATOR_PACKAGE} is now file:vendor/${generatorTarball}, a copy of file:../${generatorTarball} inside the image's build context`,
    ]);
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as Record<string, any>;
    expect(manifest.type).toBe('module');
    expect(Object.keys(manifest.scripts).sort()).toEqual(['build', 'dev', 'manifests', 'manifests:check', 'test', 'typecheck']);
    const own = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(manifest.dependencies).toEqual({ [RUNTIME_PACKAGE]: `file:vendor/${runtimeTarball}` });
    expect(manifest.devDependencies).toEqual({
      [GENERATOR_PACKAGE]: `file:vendor/${generatorTarball}`,
      '@kubernetes/client-node': own.devDependencies!['@kubernetes/client-node'],
      typescript: own.devDependencies!.typescript,
      vitest: own.devDependencies!.vitest,
      vite: own.devDependencies!.vite,
      '@types/node': own.devDependencies!['@types/node'],
    });
    const lock = JSON.parse(readFileSync(path.join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    expect([RUNTIME_PACKAGE, GENERATOR_PACKAGE].map((name) => lock.packages[`node_modules/${name}`]?.resolved)).toEqual([`file:vendor/${runtimeTarball}`, `file:vendor/${generatorTarball}`]);
    // Compared by digest: the generator's tarball carries the CEL engine (~17 MiB), too large for a deep equality of bytes.
    const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    for (const tarball of [runtimeTarball, generatorTarball]) expect(digest(path.join(project, 'vendor', tarball))).toBe(digest(path.join(project, '..', tarball)));
  });

  it('passes its own checks untouched: npm test (the policy evaluated locally too), manifests --check, typecheck, helm lint', async () => {
    const tests = (await sh('npm', ['test'])).stdout;
    expect(tests).toMatch(/Tests\s+6 passed/);
    expect(tests).toContain('src/policies/configmap-team-policy.test.ts');
    expect((await sh('npm', ['run', 'manifests:check'])).stdout).toContain('generated files are up to date (2 webhooks and 1 policy)');
    await sh('npm', ['run', 'typecheck']);
    expect(await helmLint(path.join(project, 'charts', NAME))).toContain('0 chart(s) failed');
  }, 120_000);

  it('fails npm test on a type error that vitest alone runs green: a test reading a field its type does not have', async () => {
    const file = path.join(project, 'src/webhooks/stale-field.test.ts');
    writeFileSync(
      file,
      `import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
const configMap: V1ConfigMap = { data: { mode: 'fast' } };
it('reads a renamed field', () => expect(configMap.datas).toBeUndefined());
`,
    );
    try {
      expect((await sh('npx', ['vitest', 'run', 'src/webhooks/stale-field.test.ts'])).stdout).toMatch(/Tests\s+1 passed/);
      const failed = await sh('npm', ['test']).then(
        () => undefined,
        (error: { stdout: string; code: number }) => error,
      );
      expect(failed?.code).toBeGreaterThan(0);
      expect(failed?.stdout).toContain("src/webhooks/stale-field.test.ts(4,52): error TS2551: Property 'datas' does not exist on type 'V1ConfigMap'. Did you mean 'data'?");
    } finally {
      rmSync(file);
    }
  }, 120_000);

  it('never overwrites: a second init writes nothing and lists the file the user changed', async () => {
    const file = path.join(project, 'src/webhooks/configmap-validator.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}// changed by the user\n`);
    const { stdout } = await sh('npx', ['shaper-gen', 'init', '--no-install']);
    expect(stdout).toContain('0 files written');
    expect(stdout).toContain('kept as they are (--force overwrites):\n    src/webhooks/configmap-validator.ts\n');
  });

  it('serves a core-resource webhook typed with @kubernetes/client-node: generated, tested, typechecked, rendered with its RBAC', async () => {
    writeFileSync(path.join(project, 'src/webhooks/secret-validator.ts'), SECRET_VALIDATOR);
    await sh('npm', ['run', 'manifests']);
    expect((await sh('npm', ['run', 'manifests:check'])).stdout).toContain('(3 webhooks and 1 policy)');
    await sh('npm', ['run', 'typecheck']);
    await sh('npm', ['run', 'build']);
    expect((await sh('npm', ['test'])).stdout).toMatch(/Tests\s+6 passed/);
    const objects = await helmTemplate(path.join(project, 'charts', NAME), { release: 'guard', namespace: 'guard-system' });
    const validating = findObject(objects, 'ValidatingWebhookConfiguration', `guard-${NAME}`);
    expect(validating.webhooks.map((w: { clientConfig: { service: { path: string } } }) => w.clientConfig.service.path)).toEqual(['/validate-configmap', '/validate-secret']);
    expect(findObject(objects, 'ClusterRole', `guard-${NAME}-lookups`).rules).toEqual([{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }]);
    const config = findObject(objects, 'ConfigMap', `guard-${NAME}-config`).data['config.yaml'] as string;
    expect(config).toContain('handlers:\n  - dist/webhooks.generated.js\n');
    expect(readFileSync(path.join(project, 'dist/webhooks.generated.js'), 'utf8')).toContain('SecretValidator');
  }, 120_000);

  it('renders its ValidatingAdmissionPolicy and binding where the API server serves them, and leaves them out where it does not', async () => {
    const chart = path.join(project, 'charts', NAME);
    const policyObjects = async (options: Parameters<typeof helmTemplate>[1]) =>
      (await helmTemplate(chart, { release: 'guard', ...options })).filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy'));
    const labels = {
      'helm.sh/chart': `${NAME}-0.1.0`,
      'app.kubernetes.io/name': NAME,
      'app.kubernetes.io/instance': 'guard',
      'app.kubernetes.io/version': '0.1.0',
      'app.kubernetes.io/managed-by': 'Helm',
    };
    expect(await policyObjects({ apiVersions: ['admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy'] })).toEqual([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: POLICY_NAME, labels },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            matchPolicy: 'Equivalent',
            namespaceSelector: {},
            objectSelector: { matchLabels: { 'policies.example.com/validate': 'true' } },
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'], scope: '*' }],
          },
          validations: [
            {
              expression: "'example.com/team' in object.metadata.labels && object.metadata.labels['example.com/team'] != ''",
              message: 'ConfigMaps labelled policies.example.com/validate=true must name their team in the label example.com/team',
            },
          ],
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: POLICY_NAME, labels },
        spec: { policyName: POLICY_NAME, validationActions: ['Deny'] },
      },
    ]);
    expect(await policyObjects({ kubeVersion: '1.29.0' })).toEqual([]);
  });

  it('refuses a type error in the CEL of a policy at its file:line:col and writes nothing', async () => {
    const file = path.join(project, 'src/policies/configmap-team-policy.ts');
    const source = readFileSync(file, 'utf8');
    const generated = readFileSync(path.join(project, 'charts', NAME, 'templates/validating-admission-policies.yaml'), 'utf8');
    writeFileSync(file, source.replace("!= ''`,", "!= '' && 1`,"));
    try {
      const failure = await sh('npm', ['run', 'manifests']).then(
        () => undefined,
        (error: { stderr: string }) => error.stderr,
      );
      expect(failure?.split('\n').filter((line) => line.startsWith('src/') || line.startsWith('shaper-gen:'))).toEqual([
        "src/policies/configmap-team-policy.ts:12:19: validations[0].expression: CEL compilation failed at column 1: Logical operator requires bool operands, got 'int'",
        'shaper-gen: 1 problem; nothing was written',
      ]);
      expect(readFileSync(path.join(project, 'charts', NAME, 'templates/validating-admission-policies.yaml'), 'utf8')).toBe(generated);
    } finally {
      writeFileSync(file, source);
    }
  });

  it('dev loop: a webhook added to a source is served seconds later without a manual step', async () => {
    const port = await freePort();
    const dev = spawn(process.execPath, ['node_modules/shaper-gen/dist/bin/shaper-gen.js', 'dev', '--port', String(port)], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    dev.stdout.on('data', (chunk) => (output += String(chunk)));
    dev.stderr.on('data', (chunk) => (output += String(chunk)));
    const status = async (urlPath: string) =>
      (
        await request(https, { host: '127.0.0.1', port, path: urlPath, method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'content-type': 'application/json' } }, '{}').catch(
          () => undefined,
        )
      )?.status;
    try {
      expect(await until(async () => (await status('/validate-configmap')) === 400, 90_000), output).toBe(true);
      expect(await status('/validate-namespace')).toBe(404);
      writeFileSync(
        path.join(project, 'src/webhooks/namespace-validator.ts'),
        `import type { V1Namespace } from '@kubernetes/client-node';
import { Webhook, type CustomValidator } from 'shaper-gen';
@Webhook({ path: '/validate-namespace', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['namespaces'], operations: ['DELETE'], scope: 'Cluster' }] })
export class NamespaceValidator implements CustomValidator<V1Namespace> { validateDelete(): void {} }
`,
      );
      expect(await until(async () => (await status('/validate-namespace')) === 400, 90_000), output).toBe(true);
      expect(output).not.toMatch(/changed since \S+ was generated|is older than \S+: rebuild/);
      expect(output).toMatch(/"paths":\["\/validate-configmap","\/mutate-deployment","\/validate-secret","\/validate-namespace"\]|"paths":\[[^\]]*"\/validate-namespace"/);
    } finally {
      dev.kill('SIGTERM');
      await once(dev, 'exit');
    }
  }, 200_000);
});
