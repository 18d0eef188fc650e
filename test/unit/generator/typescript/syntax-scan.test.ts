/**
 * The syntax-only pass (generator/syntax-resolver.ts) must answer exactly as the
 * type checker does, or leave the answer to it. Each case is scanned both ways.
 */
import path from 'node:path';
import { glob } from 'tinyglobby';
import { afterEach, describe, expect, it } from 'vitest';
import { loadGeneratorConfig } from '../../../../generator/src/config.js';
import { scanCustomResources } from '../../../../generator/src/crd/generate.js';
import { scanDecorators, type ScanResult } from '../../../../generator/src/manifests/scan.js';
import { createFixtureProject, REPO_ROOT, type FixtureProject } from '../../../support/fixture-project.js';

let project: FixtureProject | undefined;
afterEach(() => project?.remove());

/** Scans `dir` (its shaper.yaml) both ways; returns the default scan after checking it agrees with the checker's. */
async function scanBothWays(dir: string): Promise<ScanResult> {
  const config = loadGeneratorConfig(undefined, dir);
  const sources = (await glob([...config.sources], { cwd: config.root, ignore: [...config.exclude], absolute: true, onlyFiles: true })).sort();
  // `@Conversion` classes are checked against the CRDs generated from the same sources.
  const customResources = scanCustomResources(config.tsconfig, sources, config.root).crds;
  const result = scanDecorators(config.tsconfig, sources, { customResources });
  const checked = scanDecorators(config.tsconfig, sources, { checkerOnly: true, customResources });
  expect(checked.pass).toBe('checker');
  expect(result.webhooks).toEqual(checked.webhooks);
  expect(result.conversions).toEqual(checked.conversions);
  expect(result.diagnostics).toEqual(checked.diagnostics);
  expect(result.candidateFiles).toBe(checked.candidateFiles);
  return result;
}

async function scanFixture(files: Record<string, string>, options: Parameters<typeof createFixtureProject>[1] = {}): Promise<ScanResult> {
  project = createFixtureProject(files, options);
  return scanBothWays(project.dir);
}

const RULE = "{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] }";
const hook = (decorator: string, options: string, name = 'X') => `@${decorator}({ path: '/validate-${name.toLowerCase()}', mutating: false, rules: [${RULE}]${options} })
export class ${name} { validateCreate() {} }`;

describe('the syntax-only pass', () => {
  it('answers for the sample application, as the checker does', async () => {
    const result = await scanBothWays(REPO_ROOT);
    expect(result).toMatchObject({ pass: 'syntax' });
    expect(result.webhooks).toHaveLength(4);
    expect(result.conversions).toEqual([
      {
        className: 'ProfileConversion',
        file: path.join(REPO_ROOT, 'sample/conversion/profile-conversion.ts'),
        conversion: { group: 'shaper.io', kind: 'Profile', hub: 'v1beta1', path: '/convert' },
      },
    ]);
  });

  it('answers for every supported form: consts, enums (auto-incremented, const), spreads, aliases, re-exports, namespace imports', async () => {
    const result = await scanFixture({
      'src/consts.ts': `
        export const GROUP = 'shaper.io';
        export const VERSIONS = ['v1alpha1', 'v1beta1'] as const;
        export enum Tier { Gold = 'gold' }
        export enum Timeout { One = 1, Two, Three }
        export const enum Policy { Ignore = 'Ignore' }
        export const BASE = { groups: [GROUP], versions: VERSIONS } as const;
        export const SETTINGS = { limits: { timeout: 7 } } as const;
        const local = -3;
        export { local as NEGATIVE };
        export default SETTINGS;`,
      'src/barrel.ts': `export * from './consts.js';\nexport * as everything from './consts.js';`,
      'src/markers.ts': `export { Webhook as Hook } from 'shaper-gen';`,
      'src/hooks.ts': `
        import { Webhook, Webhook as W, type CustomValidator, type WebhookOptions } from 'shaper-gen';
        import * as shaper from 'shaper-gen';
        import * as consts from './consts.js';
        import { Hook } from './markers.js';
        import Defaults from './consts.js';
        import { BASE, GROUP, Policy, SETTINGS, Tier, Timeout, VERSIONS } from './barrel.js';
        import { NEGATIVE } from './barrel.js';
        const kind = 'profile';
        const path = \`/validate-\${kind}-\${Tier.Gold}\`;
        const rules = [{ ...BASE, resources: ['profiles', \`\${kind}s/status\`], operations: ['CREATE', 'UPDATE'] }] as const;

        @Webhook({ path, mutating: false, rules, timeoutSeconds: Timeout.Three, failurePolicy: Policy.Ignore })
        export class Literals implements CustomValidator { validateCreate() {} }

        @W({ path: '/validate-alias', mutating: false, rules: [...rules], timeoutSeconds: SETTINGS.limits.timeout, admissionReviewVersions: ['v1', VERSIONS[1]] })
        export class Aliased { validateUpdate() {} }

        @Hook({ path: '/validate-reexport', mutating: false, rules: [${RULE}], timeoutSeconds: -NEGATIVE } satisfies WebhookOptions)
        export class ReExported { validateDelete() {} }

        @shaper.Webhook({ path: '/mutate-namespace-import', mutating: true, rules: [${RULE}], name: \`mutate.\${GROUP}.example\`, timeoutSeconds: Defaults.limits.timeout, failurePolicy: consts.Policy.Ignore })
        export class NamespaceImport { default() {} }
      `,
    });
    expect(result).toMatchObject({ pass: 'syntax' });
    expect(result.webhooks.map((w) => w.className)).toEqual(['Literals', 'Aliased', 'ReExported', 'NamespaceImport']);
    expect(result.webhooks[0]!.webhook).toMatchObject({ path: '/validate-profile-gold', timeoutSeconds: 3, failurePolicy: 'Ignore' });
    expect(result.webhooks[2]!.webhook).toMatchObject({ timeoutSeconds: 3 });
    expect(result.webhooks[3]!.webhook).toMatchObject({ timeoutSeconds: 7, failurePolicy: 'Ignore' });
  });

  it('answers through the published declarations (the .d.ts files the build emits), as an installed package resolves', async () => {
    const result = await scanFixture({ 'src/hooks.ts': `import { Webhook as Hook } from 'shaper-gen';\n${hook('Hook', '')}` }, { resolveTo: 'declarations' });
    expect(result).toMatchObject({ pass: 'syntax' });
    expect(result.webhooks).toHaveLength(1);
  });

  it('passes over decorators of other libraries and of the project, and decorators merely named Webhook', async () => {
    const result = await scanFixture({
      'src/other.ts': `export function Webhook(_options: unknown) { return (_target: unknown) => {}; }`,
      'src/hooks.ts': `import { Webhook } from 'shaper-gen';
import { Injectable } from 'not-installed';
import { Webhook as NotOurs } from './other.js';
@Injectable()
${hook('Webhook', '')}
@NotOurs({ path: 'not even valid' })
export class Y {}
@Injectable()
export class Z {}`,
    });
    expect(result).toMatchObject({ pass: 'syntax' });
    expect(result.webhooks.map((w) => w.className)).toEqual(['X']);
  });

  it.each([
    ['a computed enum member', { 'src/hooks.ts': `import { Webhook } from 'shaper-gen';\nenum T { A = 1 << 2 }\n${hook('Webhook', ', timeoutSeconds: T.A')}` }],
    ['a merged enum', { 'src/hooks.ts': `import { Webhook } from 'shaper-gen';\nenum T { A = 1 }\nenum T { B = 2 }\n${hook('Webhook', ', timeoutSeconds: T.B')}` }],
    [
      'an ambient enum',
      { 'src/e.d.ts': 'export declare enum T { A = 4 }', 'src/hooks.ts': `import { Webhook } from 'shaper-gen';\nimport { T } from './e.js';\n${hook('Webhook', ', timeoutSeconds: T.A')}` },
    ],
    [
      'a name exported through two export *',
      {
        'src/a.ts': 'export const N = 5;',
        'src/b.ts': "export { N } from './a.js';",
        'src/all.ts': "export * from './a.js';\nexport * from './b.js';",
        'src/hooks.ts': `import { Webhook } from 'shaper-gen';\nimport { N } from './all.js';\n${hook('Webhook', ', timeoutSeconds: N')}`,
      },
    ],
    [
      'a module augmentation',
      {
        'src/aug.ts': "export {};\ndeclare module './hooks.js' { interface Extra { x: 1 } }",
        'src/hooks.ts': `import { Webhook } from 'shaper-gen';\n${hook('Webhook', '')}`,
      },
    ],
    [
      'a decorator declared nowhere in its module (a global, if anything)',
      { 'src/script.ts': `@Webhook({ path: '/validate-x' })\nclass S {}`, 'src/hooks.ts': `import { Webhook } from 'shaper-gen';\n${hook('Webhook', '')}` },
    ],
    ['a decorator that is not a name', { 'src/hooks.ts': `import { Webhook } from 'shaper-gen';\nconst all = { Webhook };\n${hook('all.Webhook', '')}` }],
    ['an import = require', { 'src/hooks.ts': `import { Webhook } from 'shaper-gen';\nimport fs = require('node:fs');\n@Webhook(fs as never)\nexport class X { validateCreate() {} }` }],
  ])('leaves %s to the checker, with the same result', async (_case, files) => {
    const result = await scanFixture(files);
    expect(result.pass).toBe('checker');
    expect(result.checkerReason).toBeTruthy();
  });

  it('leaves every problem to the checker, which words the diagnostics', async () => {
    const result = await scanFixture({ 'src/hooks.ts': `import { Webhook } from 'shaper-gen';\n${hook('Webhook', ', timeoutSeconds: 31')}` });
    expect(result.pass).toBe('checker');
    expect(result.diagnostics.map((d) => path.basename(d.source.file))).toEqual(['hooks.ts']);
  });
});
