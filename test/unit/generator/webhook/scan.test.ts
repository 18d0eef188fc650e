import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadGeneratorConfig } from '../../../../generator/src/config.js';
import { formatDiagnostic } from '../../../../generator/src/diagnostics.js';
import { ConfigError } from '../../../../runtime/problems.js';
import { generateManifests } from '../../../../generator/src/manifests/manifests.js';
import type { ResolvedWebhook } from '../../../../runtime/webhook/options/types.js';
import { createFixtureProject, type FixtureProject } from '../../../support/fixture-project.js';

let project: FixtureProject | undefined;
afterEach(() => project?.remove());

async function scan(files: Record<string, string>): Promise<Map<string, ResolvedWebhook>> {
  project = createFixtureProject(files);
  const result = await generateManifests(loadGeneratorConfig(undefined, project.dir));
  return new Map(result.webhooks.map((w) => [w.className, w.webhook]));
}

/** The diagnostics, as `shaper-gen manifests` prints them. */
async function problems(files: Record<string, string>): Promise<string[]> {
  project = createFixtureProject(files);
  try {
    await generateManifests(loadGeneratorConfig(undefined, project.dir));
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((d) => formatDiagnostic(d, project!.dir));
    throw error;
  }
  throw new Error('expected generation to fail');
}

const RULE = "{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] }";

describe('static evaluation of decorator arguments', () => {
  it('evaluates every supported form', async () => {
    const webhooks = await scan({
      'src/consts.ts': `
        export const GROUP = 'shaper.io';
        export const VERSIONS = ['v1alpha1', 'v1beta1'] as const;
        export enum Tier { Gold = 'gold' }
        export enum Timeout { One = 1, Two, Three }
        export const enum Policy { Ignore = 'Ignore' }
        export const BASE = { groups: [GROUP], versions: VERSIONS } as const;
        export const SETTINGS = { limits: { timeout: 7 } } as const;`,
      'src/markers.ts': `export { Webhook as Hook } from 'shaper-gen';`,
      'src/hooks.ts': `
        import { Webhook, Webhook as W, type CustomValidator, type WebhookOptions } from 'shaper-gen';
        import * as shaper from 'shaper-gen';
        import { Hook } from './markers.js';
        import { BASE, GROUP, Policy, SETTINGS, Tier, Timeout, VERSIONS } from './consts.js';
        const kind = 'profile';
        const path = \`/validate-\${kind}-\${Tier.Gold}\`;
        const rules = [{ ...BASE, resources: ['profiles', \`\${kind}s/status\`], operations: ['CREATE', 'UPDATE'] }] as const;

        @Webhook({ path, mutating: false, rules, timeoutSeconds: Timeout.Three, failurePolicy: Policy.Ignore })
        export class Literals implements CustomValidator { validateCreate() {} }

        @W({ path: '/validate-alias', mutating: false, rules: [...rules, { groups: [''], versions: ['v1'], resources: ['pods'], operations: ['*'], scope: 'Namespaced' }],
             timeoutSeconds: SETTINGS.limits.timeout, admissionReviewVersions: ['v1', VERSIONS[1]] })
        export class Aliased { validateUpdate() {} }

        @Hook({ path: '/validate-reexport', mutating: false, rules: [${RULE}], timeoutSeconds: -(-3) } satisfies WebhookOptions)
        export class ReExported { validateDelete() {} }

        @shaper.Webhook({ path: '/mutate-namespace-import', mutating: true, rules: [${RULE}], name: \`mutate.\${GROUP}.example\`, ['sideEffects']: 'NoneOnDryRun' })
        export class NamespaceImport { default() {} }
      `,
    }).catch((error: unknown) => {
      if (error instanceof ConfigError) throw new Error(error.problems.map((d) => formatDiagnostic(d)).join('\n'));
      throw error;
    });
    expect(webhooks.get('Literals')).toMatchObject({
      path: '/validate-profile-gold',
      rules: [{ groups: ['shaper.io'], versions: ['v1alpha1', 'v1beta1'], resources: ['profiles', 'profiles/status'], operations: ['CREATE', 'UPDATE'] }],
      timeoutSeconds: 3,
      failurePolicy: 'Ignore',
    });
    expect(webhooks.get('NamespaceImport')).toMatchObject({ path: '/mutate-namespace-import', name: 'mutate.shaper.io.example', sideEffects: 'NoneOnDryRun' });
    expect(webhooks.get('Aliased')).toMatchObject({
      rules: [{ resources: ['profiles', 'profiles/status'] }, { groups: [''], resources: ['pods'], operations: ['*'], scope: 'Namespaced' }],
      timeoutSeconds: 7,
      admissionReviewVersions: ['v1', 'v1beta1'],
    });
    expect(webhooks.get('ReExported')).toMatchObject({ path: '/validate-reexport', timeoutSeconds: 3 });
    expect(webhooks.size).toBe(4);
  });

  it('reports a conditional expression rather than guessing', async () => {
    expect(
      await problems({
        'src/hooks.ts': `
import { Webhook } from 'shaper-gen';
const flag = true;
@Webhook({ path: '/validate-x', mutating: false, rules: [${RULE}], timeoutSeconds: flag ? 1 : 2 })
export class X { validateCreate() {} }`,
      }),
    ).toEqual(['src/hooks.ts:4:175: cannot evaluate `flag ? 1 : 2` statically: a conditional expression is not supported; use literals, consts, enums, spreads or template literals']);
  });

  it('names each expression it cannot evaluate, with its location, and reports them all', async () => {
    expect(
      await problems({
        'src/hooks.ts': `import { Webhook } from 'shaper-gen';
let mutable = '/validate-x';
function rules() { return []; }
declare const external: number;
@Webhook({ path: mutable, mutating: false, rules: rules(), timeoutSeconds: external })
export class X { validateCreate() {} }
@Webhook({ path: '/validate-y', mutating: false, rules: [${RULE}], get name() { return 'a.b.c'; } })
export class Y { validateCreate() {} }
`,
      }),
    ).toEqual([
      'src/hooks.ts:5:18: cannot evaluate `mutable` statically: mutable is not a const; only const declarations have a value known at build time',
      'src/hooks.ts:5:51: cannot evaluate `rules()` statically: a call expression is not supported; use literals, consts, enums, spreads or template literals',
      'src/hooks.ts:5:76: cannot evaluate `external` statically: external has no initializer',
      "src/hooks.ts:7:159: cannot evaluate `get name() { return 'a.b.c'; }` statically: a get accessor is not supported in decorator options; use a plain property",
    ]);
  });

  it('ignores decorators that are merely named Webhook', async () => {
    const webhooks = await scan({
      'src/other.ts': `
function Webhook(_options: unknown) { return (_target: unknown) => {}; }
@Webhook({ path: 'not even valid' })
export class NotOurs {}`,
    });
    expect(webhooks.size).toBe(0);
  });
});

describe('validation diagnostics', () => {
  it('points at the offending property, sorted by file and position', async () => {
    expect(
      await problems({
        'src/b.ts': `import { Webhook } from 'shaper-gen';
@Webhook({
  path: '/mutate-b',
  mutating: false,
  rules: [{ groups: ['shaper.io'], versions: ['v1'], resources: ['profiles'], operations: ['CREATE', 'PATCH'] }],
  timeoutSeconds: 45,
  reinvocationPolicy: 'IfNeeded',
})
export class B { validateCreate() {} }
`,
        'src/a.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-a', mutating: false, rules: [], sideEffects: 'Some' })
export class A { validateCreate() {} }
`,
      }),
    ).toEqual([
      'src/a.ts:2:57: rules must list at least one rule',
      'src/a.ts:2:74: sideEffects "Some" is not allowed by admissionregistration.k8s.io/v1; use None, or NoneOnDryRun and honour request.dryRun',
      'src/b.ts:3:9: a validating webhook\'s path must start with "/validate-", got "/mutate-b"',
      'src/b.ts:5:102: operations[1] must be one of "CREATE", "UPDATE", "DELETE", "CONNECT", "*", got "PATCH"',
      'src/b.ts:6:19: timeoutSeconds must be a whole number from 1 to 30, got number 45',
      'src/b.ts:7:23: reinvocationPolicy applies to mutating webhooks only',
    ]);
  });

  it('reports a bad const at its use in the decorator', async () => {
    expect(
      await problems({
        'src/consts.ts': 'export const TIMEOUT = 99;\n',
        'src/hooks.ts': `import { Webhook } from 'shaper-gen';
import { TIMEOUT } from './consts.js';
@Webhook({ path: '/validate-x', mutating: false, rules: [${RULE}], timeoutSeconds: TIMEOUT })
export class X { validateCreate() {} }`,
      }),
    ).toEqual(['src/hooks.ts:3:175: timeoutSeconds must be a whole number from 1 to 30, got number 99']);
  });

  it('points into another file when a spread brings the bad value, naming the webhook', async () => {
    expect(
      await problems({
        'src/consts.ts': "export const BASE = { groups: ['Bad_Group'], versions: ['v1'] } as const;\n",
        'src/hooks.ts': `import { Webhook } from 'shaper-gen';
import { BASE } from './consts.js';
@Webhook({ path: '/validate-x', mutating: false, rules: [{ ...BASE, resources: ['pods'], operations: ['CREATE'] }] })
export class X { validateCreate() {} }`,
      }),
    ).toEqual(['src/consts.ts:1:32: API group "Bad_Group" must be "", "*" or a DNS subdomain (in @Webhook of X)']);
  });

  it('rejects duplicate paths and names across files, unexported classes, and handlers of the wrong shape', async () => {
    expect(
      await problems({
        'src/one.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-x', mutating: false, rules: [${RULE}] })
export class One { validateCreate() {} }`,
        'src/two.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-x', mutating: false, rules: [${RULE}], name: 'validate-x.shaper.io' })
export class Two { validateCreate() {} }
@Webhook({ path: '/validate-hidden', mutating: false, rules: [${RULE}] })
class Hidden { validateCreate() {} }
@Webhook({ path: '/mutate-wrong', mutating: true, rules: [${RULE}] })
export class Wrong { validateCreate() {} }
@Webhook({ path: '/validate-z', mutating: false, rules: [${RULE}] }, 'extra')
export class Extra { validateCreate() {} }`,
      }),
    ).toEqual([
      'src/two.ts:2:18: duplicate webhook path "/validate-x"',
      'src/two.ts:5:7: class Hidden with @Webhook must be a named export (export class …) so the server can register it',
      'src/two.ts:7:14: mutating webhook class Wrong must implement default(obj, ctx)',
      'src/two.ts:8:1: @Webhook must be called with exactly one options object: @Webhook({ path, mutating, rules })',
    ]);
  });

  it('reports what the API server would refuse at the decorator: path segments, default names too long or colliding', async () => {
    const long = 'a'.repeat(240);
    expect(
      await problems({
        'src/paths.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-foo_bar', mutating: false, rules: [${RULE}] })
export class Underscore { validateCreate() {} }
@Webhook({ path: '/validate-a//b', mutating: false, rules: [${RULE}] })
export class Empty { validateCreate() {} }
@Webhook({ path: '/validate-c/-d', mutating: false, rules: [${RULE}] })
export class Dash { validateCreate() {} }
@Webhook({ path: '/validate-${long}', mutating: false, rules: [${RULE}] })
export class Long { validateCreate() {} }
@Webhook({ path: '/validate-e.f', mutating: false, rules: [${RULE}] })
export class Dotted { validateCreate() {} }
@Webhook({ path: '/validate-e-f', mutating: false, rules: [${RULE}] })
export class Dashed { validateCreate() {} }`,
      }),
    ).toEqual([
      'src/paths.ts:2:18: path "/validate-foo_bar": segment[0] "validate-foo_bar" must be a lowercase RFC 1123 subdomain (letters, digits, "-" and ".", beginning and ending with a letter or digit), as the API server requires of every path segment',
      'src/paths.ts:4:18: path "/validate-a//b": segment[1] may not be empty (no "//")',
      'src/paths.ts:6:18: path "/validate-c/-d": segment[1] "-d" must be a lowercase RFC 1123 subdomain (letters, digits, "-" and ".", beginning and ending with a letter or digit), as the API server requires of every path segment',
      `src/paths.ts:8:18: the default webhook name "validate-${long}.shaper.io" derived from this path is 259 characters, over the 253 the API server allows: set \`name\` or shorten the path`,
      'src/paths.ts:12:18: paths "/validate-e.f" and "/validate-e-f" give the same default webhook name "validate-e-f.shaper.io" in the default configuration: set `name` on one of them',
    ]);
  });

  it('compiles matchConditions as the API server does: syntax errors and non-bool results at their column', async () => {
    expect(
      await problems({
        'src/cel.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-cel', mutating: false, rules: [${RULE}], matchConditions: [
  { name: 'syntax', expression: 'object.metadata.name ==' },
  { name: 'not-bool', expression: 'object.metadata.name' },
  { name: 'no-field', expression: "request.nope == 'x'" },
  { name: 'namespace-field', expression: "namespaceObject.metadata.nope == 'x'" },
  { name: 'fine', expression: "!request.userInfo.username.startsWith('system:') && has(object.metadata.labels)" },
  { name: 'kubernetes-library', expression: "authorizer.group('').resource('pods').check('get').allowed() && url('https://x').getHost() == 'x'" },
] })
export class Cel { validateCreate() {} }`,
      }),
    ).toEqual([
      'src/cel.ts:3:57: matchConditions[0].expression: CEL compilation failed at column 24: Unexpected token: EOF',
      'src/cel.ts:4:36: matchConditions[1].expression must evaluate to bool but got dyn',
      'src/cel.ts:5:44: matchConditions[2].expression: CEL compilation failed at column 9: No such key: nope',
      'src/cel.ts:6:68: matchConditions[3].expression: CEL compilation failed at column 26: No such key: nope',
    ]);
  });

  // Each of these the API server refuses; the generator used to accept them (the differential test in test/cluster found them).
  it("type-checks Kubernetes' CEL libraries and the literals the API server checks at compile time", async () => {
    expect(
      await problems({
        'src/cel.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-cel', mutating: false, rules: [${RULE}], matchConditions: [
  { name: 'argument-type', expression: "authorizer.group('apps').resource(1).check('get').allowed()" },
  { name: 'not-bool', expression: "url('https://example.com')" },
  { name: 'element-type', expression: "[1, 2].join() == '12'" },
  { name: 'dyn-receiver', expression: 'object.metadata.name.contains(1)' },
  { name: 'not-kubernetes', expression: "b'x'.hex() == '78'" },
  { name: 'bind', expression: 'cel.bind(n, object.metadata.name, n.size() > 1)' },
  { name: 'int-literal', expression: 'object.spec.replicas < 9223372036854775808' },
  { name: 'duration', expression: "duration('1x') > duration('1s')" },
  { name: 'timestamp', expression: "timestamp('2020-02-30T00:00:00Z') < timestamp(0)" },
  { name: 'regex', expression: "object.metadata.name.matches('[a-z')" },
  { name: 'format', expression: "'%d'.format(['a']) == ''" },
] })
export class Cel { validateCreate() {} }`,
      }),
    ).toEqual([
      "src/cel.ts:3:41: matchConditions[0].expression: CEL compilation failed at column 1: found no matching overload for 'kubernetes.authorization.GroupCheck.resource(int)'",
      'src/cel.ts:4:36: matchConditions[1].expression must evaluate to bool but got kubernetes.URL',
      "src/cel.ts:5:40: matchConditions[2].expression: CEL compilation failed at column 1: found no matching overload for 'list.join()'",
      "src/cel.ts:6:40: matchConditions[3].expression: CEL compilation failed at column 1: found no matching overload for 'contains' applied to 'dyn.(int)'",
      "src/cel.ts:7:42: matchConditions[4].expression: CEL compilation failed at column 1: undeclared reference to 'hex'",
      "src/cel.ts:8:32: matchConditions[5].expression: CEL compilation failed at column 1: undeclared reference to 'cel' (cel.bind is not in Kubernetes' CEL environment)",
      'src/cel.ts:9:62: matchConditions[6].expression: CEL compilation failed at column 24: invalid int literal',
      'src/cel.ts:10:45: matchConditions[7].expression: CEL compilation failed at column 10: invalid duration argument: unknown unit "x" in duration "1x"',
      'src/cel.ts:11:47: matchConditions[8].expression: CEL compilation failed at column 11: invalid timestamp argument: invalid timestamp "2020-02-30T00:00:00Z"',
      'src/cel.ts:12:62: matchConditions[9].expression: CEL compilation failed at column 30: invalid matches argument: error parsing regexp: unterminated character class in `[a-z`',
      'src/cel.ts:13:47: matchConditions[10].expression: CEL compilation failed at column 14: error during formatting: decimal clause can only be used on integers, was given string',
    ]);
  });

  // Each of these the API server accepts; the generator used to refuse them.
  it("accepts what Kubernetes' CEL environment has beyond the standard library", async () => {
    const expressions = [
      "sets.contains([1], [1]) && strings.quote('a') != '' && '%s-%d'.format(['a', 1]) == 'a-1'",
      "object.metadata.?labels.orValue({}).all(k, v, v != '') && optional.of(1).optMap(x, x + 1).hasValue()",
      '[3, 1].sort() == [1, 3] && lists.range(2).size() == 2 && [[1], [2]].flatten().distinct().reverse().slice(0, 1) == [2]',
      "[1, 2].transformList(i, v, v * 2) == [2, 4] && ['b', 'a'].sortBy(s, s)[0] == 'a'",
      "ip.isCanonical('10.0.0.1') && format.named('dns1123Label').hasValue() && sign(quantity('1')) == 1",
    ];
    const webhooks = await scan({
      'src/cel.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-cel', mutating: false, rules: [${RULE}], matchConditions: ${JSON.stringify(expressions.map((expression, i) => ({ name: `c${i}`, expression })))} })
export class Cel { validateCreate() {} }`,
    });
    expect(webhooks.get('Cel')!.matchConditions).toHaveLength(expressions.length);
  });

  it("reports matchConditions problems alongside the other options' problems", async () => {
    expect(
      await problems({
        'src/both.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-both', mutating: false, rules: [${RULE}], timeoutSeconds: 0,
  matchConditions: [{ name: 'c', expression: 'object.metadata.name' }] })
export class Both { validateCreate() {} }`,
      }),
    ).toEqual(['src/both.ts:2:178: timeoutSeconds must be a whole number from 1 to 30, got number 0', 'src/both.ts:3:47: matchConditions[0].expression must evaluate to bool but got dyn']);
  });

  it('writes nothing when any problem exists', async () => {
    await problems({
      'src/ok.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-ok', mutating: false, rules: [${RULE}] })
export class Ok { validateCreate() {} }`,
      'src/bad.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-bad', mutating: false, rules: [${RULE}], timeoutSeconds: 0 })
export class Bad { validateCreate() {} }`,
    });
    expect(existsSync(project!.file('charts/shaper-webhooks/templates/validating-webhook-configuration.yaml'))).toBe(false);
    expect(existsSync(project!.file('src/webhooks.generated.ts'))).toBe(false);
  });
});

describe('generator config', () => {
  it('reports unknown keys and wrong types with their YAML path and line', async () => {
    expect(
      await problems({
        'shaper.yaml': `apiVersion: shaper-gen.io/v1alpha1
kind: GeneratorConfig
sources: src/**/*.ts
chartdir: charts/x
handlersModule: src/index.js
`,
      }),
    ).toEqual([
      'shaper.yaml:3:10: sources: must be a list',
      'shaper.yaml:4:1: chartdir: unknown key; did you mean "chartDir"? expected one of apiVersion, kind, tsconfig, sources, exclude, chartDir, handlersModule, crds, types, static',
      'shaper.yaml:5:17: handlersModule: must name a .ts or .mts file',
    ]);
  });

  it('requires apiVersion and kind', async () => {
    expect(await problems({ 'shaper.yaml': 'sources: ["src/**/*.ts"]\n' })).toEqual([
      'shaper.yaml:1:1: a generator config needs "apiVersion: shaper-gen.io/v1alpha1" and "kind: GeneratorConfig"',
    ]);
  });
});
