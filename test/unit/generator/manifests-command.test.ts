import { readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { runManifests } from '../../../packages/generator/src/run-manifests.js';
import { createFixtureProject, type FixtureProject } from '../../support/fixture-project.js';

const GENERATED = [
  'charts/shaper-webhooks/templates/mutating-webhook-configuration.yaml',
  'charts/shaper-webhooks/templates/validating-webhook-configuration.yaml',
  'charts/shaper-webhooks/templates/_webhook-paths.tpl',
  'charts/shaper-webhooks/templates/_rbac-rules.tpl',
  'src/webhooks.generated.ts',
];

const HOOKS = `import { Webhook } from 'shaper-gen';
const rules = [{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE', 'UPDATE'] }] as const;
@Webhook({ path: '/validate-zeta', mutating: false, rules })
export class Zeta { validateCreate() {} }
@Webhook({ path: '/validate-alpha', mutating: false, rules, configuration: 'second' })
export class Alpha { validateCreate() {} }
@Webhook({ path: '/mutate-beta', mutating: true, rules })
export class Beta { default() {} }
`;

let project: FixtureProject;
let log: MockInstance;
let error: MockInstance;
const printed = (spy: MockInstance) => spy.mock.calls.map((call) => call.join(' ')).join('\n');

beforeEach(() => {
  project = createFixtureProject({
    'src/hooks.ts': HOOKS,
    // Same class name in another directory: the index must alias it.
    'src/more/zeta.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-zeta-two', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['DELETE'] }] })
export class Zeta { validateDelete() {} }`,
  });
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
  error = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  project.remove();
});

describe('shaper-gen manifests', () => {
  it('writes the chart templates and the handlers index, byte-identical on a second run', async () => {
    expect(await runManifests({}, project.dir)).toBe(0);
    const first = GENERATED.map((file) => project.read(file));
    const mtimes = GENERATED.map((file) => statSync(project.file(file)).mtimeMs);
    expect(printed(log)).toContain('4 webhooks from 2 of 2 files; 5 file(s) updated');

    expect(await runManifests({}, project.dir)).toBe(0);
    expect(GENERATED.map((file) => project.read(file))).toEqual(first);
    expect(GENERATED.map((file) => statSync(project.file(file)).mtimeMs)).toEqual(mtimes);
    expect(printed(log)).toContain('0 file(s) updated');
  });

  it('sorts configurations and webhooks, and aliases clashing class names in the index', async () => {
    await runManifests({}, project.dir);
    const validating = project.read(GENERATED[1]!);
    const names = [...validating.matchAll(/- name: "([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(['validate-zeta-two.shaper-gen.io', 'validate-zeta.shaper.io', 'validate-alpha.shaper.io']);
    expect(validating.match(/^ {2}name: .*$/gm)).toEqual([
      '  name: {{ include "shaper-webhooks.fullname" $ }}',
      '  name: {{ include "shaper-webhooks.fullname" $ }}-second',
    ]);
    expect(project.read('src/webhooks.generated.ts')).toContain(
      [
        'import { Alpha } from "./hooks.js";',
        'import { Beta } from "./hooks.js";',
        'import { Zeta } from "./hooks.js";',
        'import { Zeta as Zeta_2 } from "./more/zeta.js";',
        '',
        'export const webhooks = [',
        '  Alpha,',
        '  Beta,',
        '  Zeta,',
        '  Zeta_2,',
        '] as const;',
      ].join('\n'),
    );
    expect(project.read(GENERATED[2]!)).toContain('- "/mutate-beta"\n- "/validate-alpha"\n- "/validate-zeta"\n- "/validate-zeta-two"');
  });

  it('--check passes on fresh files and fails with a summary on stale or missing ones', async () => {
    await runManifests({}, project.dir);
    expect(await runManifests({ check: true }, project.dir)).toBe(0);
    expect(printed(log)).toContain('generated files are up to date (4 webhooks)');

    project.write('src/hooks.ts', HOOKS.replace("path: '/validate-zeta'", "path: '/validate-omega'"));
    const before = readFileSync(project.file(GENERATED[1]!), 'utf8');
    expect(await runManifests({ check: true }, project.dir)).toBe(1);
    expect(readFileSync(project.file(GENERATED[1]!), 'utf8')).toBe(before);
    const report = printed(error);
    expect(report).toContain('generated file(s) are stale; run `shaper-gen manifests` and commit the result:');
    expect(report).toMatch(/charts\/shaper-webhooks\/templates\/validating-webhook-configuration\.yaml: line \d+: expected ".*", found ".*"/);
    expect(report).toContain('charts/shaper-webhooks/templates/_webhook-paths.tpl: line');
  });

  it('--check reports missing files', async () => {
    expect(await runManifests({ check: true }, project.dir)).toBe(1);
    expect(printed(error)).toContain('src/webhooks.generated.ts: missing');
  });

  it('--stdout prints every file and writes nothing', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(await runManifests({ stdout: true }, project.dir)).toBe(0);
    const output = write.mock.calls.map((c) => String(c[0])).join('');
    for (const file of GENERATED) expect(output).toContain(`# ---- ${file}\n`);
    expect(await runManifests({ check: true }, project.dir)).toBe(1);
  });

  it('prints file:line:col diagnostics, exits 1 and writes nothing on bad input', async () => {
    project.write('src/bad.ts', `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-bad', mutating: false, rules: [], timeoutSeconds: 0 })
export class Bad { validateCreate() {} }`);
    expect(await runManifests({}, project.dir)).toBe(1);
    expect(printed(error).split('\n')).toEqual([
      'src/bad.ts:2:59: rules must list at least one rule',
      'src/bad.ts:2:79: timeoutSeconds must be a whole number from 1 to 30, got number 0',
      'shaper-gen: 2 problem(s); nothing was written',
    ]);
    expect(await runManifests({ check: true }, project.dir)).toBe(1);
  });

  it('names what a chart lacks for the generated templates (a `helm create` chart, renamed helpers) and writes nothing', async () => {
    project.write('charts/shaper-webhooks/values.yaml', 'replicaCount: 1\nservice:\n  port: 80\ncertManager: {}\n');
    project.write('charts/shaper-webhooks/templates/_helpers.tpl', '{{- define "team-guard.fullname" -}}x{{- end }}\n{{- define "shaper-webhooks.labels" -}}{{- end }}\n');
    project.write('charts/shaper-webhooks/templates/certificate.yaml', '');
    project.write('charts/shaper-webhooks/templates/rbac.yaml', '');
    project.write('src/lookup.ts', `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-lookup', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }], rbac: [{ groups: [''], resources: ['namespaces'], verbs: ['get'] }] })
export class Lookup { validateCreate() {} }`);
    expect(await runManifests({}, project.dir)).toBe(1);
    const contract = '(see "Chart contract" in the shaper-gen README)';
    expect(printed(error).split('\n')).toEqual([
      `charts/shaper-webhooks/values.yaml:1:1: values.yaml does not declare certManager.enabled, which the generated webhook configurations read ${contract}`,
      `charts/shaper-webhooks/values.yaml:1:1: values.yaml does not declare webhook.url, which the generated webhook configurations read ${contract}`,
      `charts/shaper-webhooks/values.yaml:1:1: values.yaml does not declare webhook.caBundle, which the generated webhook configurations read ${contract}`,
      `charts/shaper-webhooks/values.yaml:1:1: values.yaml does not declare webhook.excludeSystemNamespaces, which the generated webhook configurations read ${contract}`,
      `charts/shaper-webhooks/templates/_helpers.tpl:1:1: no template defines "shaper-webhooks.fullname", which the generated webhook configurations include (helpers are named after Chart.yaml's name "shaper-webhooks") ${contract}`,
      `charts/shaper-webhooks/templates:1:1: no template makes the cert-manager Certificate "<fullname>-serving-cert" whose CA cainjector injects into the generated webhook configurations ${contract}`,
      `charts/shaper-webhooks/templates:1:1: webhooks declare rbac or cache, but no template includes "shaper-webhooks.rbacRules": the server's ServiceAccount would not get those permissions ${contract}`,
      'shaper-gen: 7 problem(s); nothing was written',
    ]);
    for (const file of GENERATED) expect(() => project.read(file)).toThrow(/ENOENT/);
  });

  it('writes the handlers module beside the sources when no shaper.yaml names one', async () => {
    const bare = createFixtureProject({ 'src/hooks.ts': HOOKS }, { shaperYaml: null });
    try {
      expect(await runManifests({}, bare.dir)).toBe(0);
      expect(printed(log)).toContain('wrote src/webhooks.generated.ts');
      expect(bare.read('src/webhooks.generated.ts')).toContain("import { Alpha } from \"./hooks.js\";\nimport { Beta } from \"./hooks.js\";\nimport { Zeta } from \"./hooks.js\";\n");
    } finally {
      bare.remove();
    }
  });
});
