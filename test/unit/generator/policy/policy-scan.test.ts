/**
 * `@ValidatingPolicy` in `shaper-gen manifests`: the options checked by the
 * runtime's schema, every CEL expression compiled as the API server does and
 * against the CRD's schema (shaper.yaml `crds`), each problem at
 * `file:line:col` with nothing written; the syntax-only pass agreeing with the
 * checker; the generated template byte-identical from run to run and covered
 * by `--check`.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadGeneratorConfig } from '../../../../generator/src/config.js';
import { formatDiagnostic } from '../../../../generator/src/diagnostics.js';
import { generateManifests } from '../../../../generator/src/manifests/manifests.js';
import { loadCrdSchemas } from '../../../../generator/src/policy/crd-schemas.js';
import { runManifests } from '../../../../generator/src/manifests/run-manifests.js';
import { scanDecorators, type ScanResult } from '../../../../generator/src/manifests/scan.js';
import { ConfigError } from '../../../../runtime/problems.js';
import { createFixtureProject, DEFAULT_SHAPER_YAML, type FixtureProject } from '../../../support/fixture-project.js';
import { WIDGET_CRD } from '../../../support/widget-crd.js';

const POLICIES_FILE = 'charts/shaper-webhooks/templates/validating-admission-policies.yaml';

const SHAPER_YAML = `${DEFAULT_SHAPER_YAML}crds: ["config/crd/*.yaml"]\n`;
const WIDGETS = "[{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'] }]";

let project: FixtureProject | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  project?.remove();
  project = undefined;
});

function fixture(files: Record<string, string>): FixtureProject {
  project = createFixtureProject({ 'shaper.yaml': SHAPER_YAML, 'config/crd/widgets.yaml': WIDGET_CRD, ...files });
  return project;
}

/** The diagnostics, as `shaper-gen manifests` prints them. */
async function problems(files: Record<string, string>): Promise<string[]> {
  const dir = fixture(files).dir;
  try {
    await generateManifests(loadGeneratorConfig(undefined, dir));
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((d) => formatDiagnostic(d, dir));
    throw error;
  }
  throw new Error('expected generation to fail');
}

/** `file:line:col` of the first `needle` on the line of `source` that contains `marker` (1-based, as diagnostics count). */
function at(file: string, source: string, marker: string, needle: string): string {
  const lines = source.split('\n');
  const line = lines.findIndex((text) => text.includes(marker));
  if (line === -1) throw new Error(`no line with ${marker}`);
  const column = lines[line]!.indexOf(needle, lines[line]!.indexOf(marker));
  return `${file}:${line + 1}:${column + 1}`;
}

const policy = (name: string, body: string) => `@ValidatingPolicy({ rules: ${WIDGETS}, ${body} })\nexport class ${name} {}\n`;
const IMPORT = "import { ValidatingPolicy } from 'shaper-gen';\n";

describe('CEL in @ValidatingPolicy, as the API server compiles it and against the CRD schema', () => {
  it('reports a misspelt field at its column in the string, naming the schema', async () => {
    const source = `${IMPORT}${policy('ReplicaPolicy', "validations: [{ expression: 'object.spec.replicas <= 5 && object.spec.replcas >= 1', message: 'at most 5' }]")}`;
    expect(await problems({ 'src/policies.ts': source })).toEqual([
      `${at('src/policies.ts', source, 'replcas', 'replcas')}: validations[0].expression: CEL compilation failed at column 42: No such key: replcas (object is widgets.example.com/v1, typed from its schema)`,
    ]);
    expect(existsSync(project!.file(POLICIES_FILE))).toBe(false);
  });

  it('reports a validation that is not a bool and a messageExpression that is not a string, server-side and schema-typed', async () => {
    const source = `${IMPORT}${policy(
      'Results',
      `validations: [
    { expression: 'object.spec.replicas' },
    { expression: 'object.spec.replicas > 0', messageExpression: 'object.spec.tier' },
    { expression: "object.spec.tier == 'gold'", messageExpression: "'replicas: ' + object.spec.replicas" },
    { expression: 'object.spec.replicas + 1' },
  ]`,
    )}`;
    expect(await problems({ 'src/policies.ts': source })).toEqual([
      `${at('src/policies.ts', source, "{ expression: 'object.spec.replicas' }", 'object.spec')}: validations[0].expression must evaluate to bool but got dyn`,
      `${at('src/policies.ts', source, "messageExpression: 'object.spec.tier'", 'object.spec.tier')}: validations[1].messageExpression must evaluate to string but got dyn`,
      `${at('src/policies.ts', source, "'replicas: ' + object", "'replicas")}: validations[2].messageExpression: CEL compilation failed at column 1: no such overload: string + int (object is widgets.example.com/v1, typed from its schema)`,
      `${at('src/policies.ts', source, "'object.spec.replicas + 1'", 'object.spec')}: validations[3].expression must evaluate to bool but got int`,
    ]);
  });

  it('types object only where the rules name one resource the crds list; elsewhere object is dyn, as on the server', async () => {
    // spec.replcas is wrong for widgets, but a rule on a second resource leaves object dyn, and no CRD is listed for gadgets.
    const result = await generateManifests(
      loadGeneratorConfig(
        undefined,
        fixture({
          'src/policies.ts': `${IMPORT}@ValidatingPolicy({ rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets', 'gadgets'], operations: ['CREATE'] }], validations: [{ expression: 'object.spec.replcas >= 1' }] })
export class TwoResources {}
@ValidatingPolicy({ rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['gadgets'], operations: ['CREATE'] }], validations: [{ expression: 'object.spec.replcas >= 1' }] })
export class NoCrd {}
`,
        }).dir,
      ),
    );
    expect(result.policies.map((p) => p.className)).toEqual(['TwoResources', 'NoCrd']);
  });
});

describe('@ValidatingPolicy options', () => {
  it('points at the offending option: unknown option, Deny with Warn, paramRef without paramKind', async () => {
    const source = `${IMPORT}${policy('Unknown', "validation: [{ expression: 'true' }], auditAnnotations: [{ key: 'k', valueExpression: \"'v'\" }]")}${policy(
      'Actions',
      "validations: [{ expression: 'true' }], validationActions: ['Deny', 'Warn']",
    )}${policy('Params', "validations: [{ expression: 'true' }], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' }")}`;
    expect(await problems({ 'src/policies.ts': source })).toEqual([
      `${at('src/policies.ts', source, 'validation:', "[{ expression: 'true' }], audit")}: unknown option "validation"; did you mean "validations"? known options: name, rules, excludeResourceRules, namespaceSelector, objectSelector, matchPolicy, matchConditions, variables, validations, auditAnnotations, failurePolicy, paramKind, paramRef, validationActions`,
      `${at('src/policies.ts', source, "validationActions: ['Deny'", "['Deny'")}: validationActions must not contain both Deny and Warn (the API server refuses it): pick one, with Audit if you like`,
      `${at('src/policies.ts', source, 'paramRef:', '{ name')}: paramRef needs paramKind: the kind of the parameter object`,
    ]);
  });

  it('refuses two policies of one name, at the second class, across files', async () => {
    const first = `${IMPORT}${policy('First', "name: 'widgets.example.com', validations: [{ expression: 'true' }]")}`;
    const second = `${IMPORT}${policy('Second', "name: 'widgets.example.com', validations: [{ expression: 'true' }]")}`;
    expect(await problems({ 'src/a.ts': first, 'src/b.ts': second })).toEqual([
      `${at('src/b.ts', second, 'class Second', 'Second')}: duplicate policy name "widgets.example.com" (also First): set \`name\` on one of them`,
    ]);
  });

  it("reports a policy's option problems before compiling its CEL, and writes nothing", async () => {
    const source = `${IMPORT}${policy('Both', "failurePolicy: 'fail', validations: [{ expression: 'object.spec.replicas' }]")}`;
    const found = await problems({ 'src/policies.ts': source, 'src/ok.ts': `${IMPORT}${policy('Fine', "validations: [{ expression: 'true' }]")}` });
    // Unlike @Webhook's matchConditions, the CEL of a policy whose options are refused is not compiled (scan-policy.ts): a second run reports it.
    expect(found).toEqual([`${at('src/policies.ts', source, "failurePolicy: 'fail'", "'fail'")}: failurePolicy must be one of "Fail", "Ignore", got "fail"`]);
    expect(existsSync(project!.file(POLICIES_FILE))).toBe(false);
    expect(existsSync(project!.file('src/webhooks.generated.ts'))).toBe(false);
  });

  it('refuses a CRD file that is not a CRD, at the file', async () => {
    expect(await problems({ 'config/crd/extra.yaml': 'apiVersion: v1\nkind: ConfigMap\n', 'src/policies.ts': `${IMPORT}${policy('Fine', "validations: [{ expression: 'true' }]")}` })).toEqual([
      'config/crd/extra.yaml:1:1: not a CustomResourceDefinition with spec.group, spec.names.kind, spec.names.plural and spec.versions: list only CRD files (the `crds` and `types` of shaper.yaml, `create types --from`)',
    ]);
  });
});

describe('the syntax-only pass, for policies', () => {
  /** Scans both ways with the CRD schemas; returns the default scan after checking it agrees with the checker's. */
  async function scanBothWays(dir: string): Promise<ScanResult> {
    const config = loadGeneratorConfig(undefined, dir);
    const sources = (await glob([...config.sources], { cwd: config.root, ignore: [...config.exclude], absolute: true, onlyFiles: true })).sort();
    const context = await loadCrdSchemas(config.root, config.crds);
    const result = scanDecorators(config.tsconfig, sources, { policies: context });
    const checked = scanDecorators(config.tsconfig, sources, { policies: context, checkerOnly: true });
    expect(checked.pass).toBe('checker');
    expect(result.policies).toEqual(checked.policies);
    expect(result.diagnostics).toEqual(checked.diagnostics);
    return result;
  }

  it('answers for policies built from consts, spreads, enums and a re-exported decorator, as the checker does', async () => {
    const result = await scanBothWays(
      fixture({
        'src/consts.ts': `export const GROUP = 'example.com';
export const WIDGET_RULE = { groups: [GROUP], versions: ['v1'], resources: ['widgets'] } as const;
export enum Action { Warn = 'Warn', Audit = 'Audit' }
export const MAX = 5;`,
        'src/markers.ts': "export { ValidatingPolicy as Policy } from 'shaper-gen';",
        'src/policies.ts': `import * as shaper from 'shaper-gen';
import { Policy } from './markers.js';
import { Action, MAX, WIDGET_RULE } from './consts.js';
@Policy({ rules: [{ ...WIDGET_RULE, operations: ['CREATE'] }], validations: [{ expression: \`object.spec.replicas <= \${MAX}\` }], validationActions: [Action.Warn, Action.Audit] })
export class Limit {}
@shaper.ValidatingPolicy({ name: 'tier.example.com', rules: [{ ...WIDGET_RULE, operations: ['UPDATE'] }], variables: [{ name: 'tier', expression: 'object.spec.tier' }], validations: [{ expression: "variables.tier != ''" }] })
export class Tier {}`,
      }).dir,
    );
    expect(result.pass).toBe('syntax');
    expect(result.policies.map((p) => [p.className, p.policy.name, 'validationActions' in p.policy && p.policy.validationActions])).toEqual([
      ['Limit', 'limit.example.com', ['Warn', 'Audit']],
      ['Tier', 'tier.example.com', ['Deny']],
    ]);
    expect('validations' in result.policies[0]!.policy && result.policies[0]!.policy.validations).toEqual([{ expression: 'object.spec.replicas <= 5' }]);
  });

  it('leaves problems to the checker, which reports the same ones', async () => {
    const result = await scanBothWays(fixture({ 'src/policies.ts': `${IMPORT}${policy('Bad', "validations: [{ expression: 'object.spec.replcas > 1' }]")}` }).dir);
    expect(result.pass).toBe('checker');
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'validations[0].expression: CEL compilation failed at column 13: No such key: replcas (object is widgets.example.com/v1, typed from its schema)',
    ]);
  });
});

describe('the generated policies template', () => {
  const SOURCE = `${IMPORT}${policy('Zeta', "validations: [{ expression: 'object.spec.replicas <= 5' }]")}${policy(
    'Alpha',
    "validations: [{ expression: \"object.spec.tier != ''\" }], auditAnnotations: [{ key: 'tier', valueExpression: 'string(object.spec.tier)' }]",
  )}`;

  it('is byte-identical on a second run, sorted by policy name, and covered by --check', async () => {
    const dir = fixture({ 'src/policies.ts': SOURCE }).dir;
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await runManifests({}, dir), error.mock.calls.join('\n')).toBe(0);
    const first = project!.read(POLICIES_FILE);
    const mtime = statSync(project!.file(POLICIES_FILE)).mtimeMs;
    expect(await runManifests({}, dir)).toBe(0);
    expect(project!.read(POLICIES_FILE)).toBe(first);
    expect(statSync(project!.file(POLICIES_FILE)).mtimeMs).toBe(mtime);
    expect([...first.matchAll(/^# (\w+) in (.+)$/gm)].map((m) => `${m[1]} ${m[2]}`)).toEqual(['Alpha src/policies.ts', 'Zeta src/policies.ts']);
    expect([...first.matchAll(/^kind: (\w+)$/gm)].map((m) => m[1])).toEqual([
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);

    expect(await runManifests({ check: true }, dir), error.mock.calls.join('\n')).toBe(0);
    project!.write('src/policies.ts', SOURCE.replace('<= 5', '<= 6'));
    expect(await runManifests({ check: true }, dir)).toBe(1);
    const report = error.mock.calls.map((call) => call.join(' ')).join('\n');
    expect(report).toContain(`${path.normalize(POLICIES_FILE)}: line`);
    expect(project!.read(POLICIES_FILE)).toBe(first);
  });

  it('is written with no policy at all, as a template that renders nothing', async () => {
    const dir = fixture({}).dir;
    vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await runManifests({}, dir)).toBe(0);
    expect(project!.read(POLICIES_FILE)).toBe(
      '# Code generated by shaper-gen manifests; DO NOT EDIT.\n# Regenerate with `shaper-gen manifests`; CI checks freshness with `shaper-gen manifests --check`.\n',
    );
  });
});

describe('@MutatingPolicy in shaper-gen manifests', () => {
  it('reports each CEL problem at file:line:col (a misspelt field at its column in the string, a JSONPatch field), and writes nothing', async () => {
    const source = `import { MutatingPolicy } from 'shaper-gen';
@MutatingPolicy({
  rules: ${WIDGETS},
  mutations: [
    { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{replicaz: 3}}' } },
    { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', pth: '/spec/tier', value: 'x'}]" } },
  ],
})
export class WidgetDefaults {}
`;
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const dir = fixture({ 'src/defaults.ts': source }).dir;
    expect(await runManifests({}, dir)).toBe(1);
    expect(
      error.mock.calls
        .map((call) => call.join(' '))
        .join('\n')
        .split('\n'),
    ).toEqual([
      `${at('src/defaults.ts', source, 'replicaz', 'replicaz')}: mutations[0].applyConfiguration.expression: CEL compilation failed at column 26: Object.spec has no field 'replicaz' in the resource's schema (object is widgets.example.com/v1, typed from its schema)`,
      `${at('src/defaults.ts', source, 'pth', 'pth')}: mutations[1].jsonPatch.expression: CEL compilation failed at column 23: JSONPatch has no field 'pth' (JSONPatch has the fields op, path, from and value)`,
      'shaper-gen: 2 problems; nothing was written',
    ]);
    expect(existsSync(path.join(dir, 'charts/shaper-webhooks/templates/mutating-admission-policies.yaml'))).toBe(false);
  });
});
