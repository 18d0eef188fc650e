/**
 * npm run docs:check (scripts/docs/): the generated reference pages match the
 * code, and the checks fail on what they are meant to catch, so the step in
 * `npm test` cannot pass by checking nothing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readValueDocs } from '../../../scripts/docs/chart-values.ts';
import { MARKER_NAMES } from '../../../generator/src/crd/marker-definitions.js';
import { checkDocs } from '../../../scripts/docs/links.ts';
import { differingPages, renderReferencePages, type ReferencePage } from '../../../scripts/docs/reference.ts';
import { objectTemplateFields, webhookTemplateFields } from '../../../scripts/docs/template-fields.ts';
import { MUTATING_POLICY_OPTION_NAMES } from '../../../runtime/policy/options/mutating-policy-fields.js';
import { VALIDATING_POLICY_OPTION_NAMES } from '../../../runtime/policy/options/policy-fields.js';
import { REPO_ROOT } from '../../../support/repo-root.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'shaper-docs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): { root: string; files: string[] } {
  const root = path.join(scratch, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return { root, files: Object.keys(files) };
}

describe('the generated reference pages', () => {
  let pages: ReferencePage[];
  beforeAll(async () => {
    pages = await renderReferencePages(REPO_ROOT);
  }, 60_000);

  it('are committed as the code gives them (npm run docs)', () => {
    expect(pages.map((page) => page.file)).toEqual([
      'docs/reference/decorator-options.md',
      'docs/reference/validating-policy-options.md',
      'docs/reference/mutating-policy-options.md',
      'docs/reference/cli.md',
      'docs/reference/chart-values.md',
      'docs/reference/server-config.md',
      'docs/reference/metrics.md',
      'docs/reference/chart-contract.md',
      'docs/reference/crd-markers.md',
    ]);
    expect(differingPages(pages, REPO_ROOT)).toEqual([]);
  });

  it('are reported when missing or stale', () => {
    const { root } = project('stale', {
      [pages[0]!.file]: `${pages[0]!.content}edited\n`,
      ...Object.fromEntries(pages.slice(2).map((page) => [page.file, page.content])),
    });
    expect(differingPages(pages, root)).toEqual([
      { file: pages[0]!.file, state: 'stale' },
      { file: pages[1]!.file, state: 'missing' },
    ]);
  });

  it('cover every option, command, chart value, contract entry and marker', () => {
    const [options, policyOptions, mutatingOptions, cli, values, config, metrics, contract, markers] = pages.map((page) => page.content);
    for (const option of ['path', 'mutating', 'rules', 'failurePolicy', 'matchConditions', 'rbac', 'cache']) expect(options).toContain(`## \`${option}\``);
    for (const option of VALIDATING_POLICY_OPTION_NAMES) expect(policyOptions).toContain(`## \`${option}\``);
    expect(policyOptions).toContain('| `validationActions` | `ValidationAction[]` | `["Deny"]` | `ValidatingAdmissionPolicyBinding spec.validationActions`');
    expect(policyOptions).toContain('No such key: replcas (object is widgets.example.com/v1, typed from its schema)');
    for (const option of MUTATING_POLICY_OPTION_NAMES) expect(mutatingOptions).toContain(`## \`${option}\``);
    expect(mutatingOptions).toContain('| `reinvocationPolicy` | `ReinvocationPolicy` | `"Never"` | `MutatingAdmissionPolicy spec.reinvocationPolicy` |');
    expect(mutatingOptions).toContain("Object.spec has no field 'replicaz' in the resource's schema (object is widgets.example.com/v1, typed from its schema)");
    for (const key of ['policies.enabled', 'policies.validationActions', 'policies.overrides']) expect(values).toContain(`| \`${key}\` |`);
    for (const command of ['init', 'manifests', 'dev', 'serve']) expect(cli).toContain(`## \`shaper-gen ${command}\``);
    expect(cli).toContain('--no-install');
    expect(values).toContain('| `server.shutdown.drainSeconds` | int | `5` |');
    expect(config).toContain('| `shutdown.drainSeconds` | integer ≥ 0, ≤ 600 | `5` |');
    expect(metrics).toContain('| `shaper_webhook_request_duration_seconds` | histogram | `webhook` |');
    expect(contract).toContain('| `service.port` | int | `443` |');
    expect(contract).toContain('`define "<chart>.fullname"`');
    expect(contract).toContain('`<fullname>-serving-cert`');
    for (const marker of MARKER_NAMES) expect(markers).toMatch(new RegExp(`^\\| \`@shaper:${marker}\``, 'm'));
  });
});

describe('the template reading behind "written to"', () => {
  it('follows indentation, {{#if}} and {{#each}} to the webhook field', () => {
    const fields = webhookTemplateFields(path.join(REPO_ROOT, 'templates/webhook/webhook-configurations.yaml.hbs'), ['path', 'rules', 'failurePolicy', 'objectSelector', 'matchConditions']);
    expect(Object.fromEntries(fields)).toEqual({
      path: ['webhooks[].clientConfig.url', 'webhooks[].clientConfig.service.path'],
      failurePolicy: ['webhooks[].failurePolicy'],
      objectSelector: ['webhooks[].objectSelector'],
      rules: ['webhooks[].rules'],
      'rules.groups': ['webhooks[].rules[].apiGroups'],
      'rules.versions': ['webhooks[].rules[].apiVersions'],
      'rules.operations': ['webhooks[].rules[].operations'],
      'rules.resources': ['webhooks[].rules[].resources'],
      'rules.scope': ['webhooks[].rules[].scope'],
      matchConditions: ['webhooks[].matchConditions'],
      'matchConditions.name': ['webhooks[].matchConditions[].name'],
      'matchConditions.expression': ['webhooks[].matchConditions[].expression'],
    });
  });
});

describe('the template reading behind the policy page', () => {
  it('names each object of the template by its kind, and follows dotted references and a one-line {{#each}}', () => {
    const fields = objectTemplateFields(path.join(REPO_ROOT, 'templates/policy/validating-admission-policies.yaml.hbs'), VALIDATING_POLICY_OPTION_NAMES);
    expect(fields.get('name')).toEqual(['ValidatingAdmissionPolicy metadata.name', 'ValidatingAdmissionPolicyBinding metadata.name', 'ValidatingAdmissionPolicyBinding spec.policyName']);
    expect(fields.get('validationActions')).toEqual(['ValidatingAdmissionPolicyBinding spec.validationActions']);
    expect(fields.get('paramRef')).toEqual(['ValidatingAdmissionPolicyBinding spec.paramRef']);
    expect(fields.get('paramRef.parameterNotFoundAction')).toEqual(['ValidatingAdmissionPolicyBinding spec.paramRef.parameterNotFoundAction']);
    expect(fields.get('paramKind.kind')).toEqual(['ValidatingAdmissionPolicy spec.paramKind.kind']);
    expect(fields.get('rules.groups')).toEqual(['ValidatingAdmissionPolicy spec.matchConstraints.resourceRules[].apiGroups']);
    expect(fields.get('validations.messageExpression')).toEqual(['ValidatingAdmissionPolicy spec.validations[].messageExpression']);
    // Every option is written somewhere.
    expect(VALIDATING_POLICY_OPTION_NAMES.filter((option) => !fields.has(option))).toEqual([]);
  });
});

describe('the values.yaml reading behind chart-values.md', () => {
  it('takes `# --` blocks with their continuation lines, one row for a described map, and lists undescribed leaves', () => {
    const docs = readValueDocs(
      [
        '# Header, not a description.',
        '',
        '# -- Pods of the server.',
        '# Two or more.',
        'replicaCount: 2',
        'server:',
        '  # -- Container ports.',
        '  ports:',
        '    webhook: 9443',
        '  handlers:',
        '    - dist/a.js',
        '  plain: 1',
        '# A section comment',
        'other: {}',
      ].join('\n'),
    );
    expect(docs).toEqual([
      { key: 'replicaCount', type: 'int', default: 2, description: 'Pods of the server. Two or more.' },
      { key: 'server.ports', type: 'object', default: { webhook: 9443 }, description: 'Container ports.' },
      { key: 'server.handlers', type: 'list', default: ['dist/a.js'], description: '' },
      { key: 'server.plain', type: 'int', default: 1, description: '' },
      { key: 'other', type: 'object', default: {}, description: '' },
    ]);
  });
});

describe('the link and path check', () => {
  it('passes on this repository, having checked links and paths', () => {
    const result = checkDocs(REPO_ROOT);
    expect(result.problems).toEqual([]);
    expect(result.files).toBeGreaterThan(10);
    expect(result.links).toBeGreaterThan(20);
    expect(result.paths).toBeGreaterThan(20);
  });

  it('reports broken links and missing backticked paths, and nothing in code blocks, URLs, anchors or reader patterns', () => {
    const { root, files } = project('links', {
      'runtime/server/drain.ts': '',
      'charts/app/values.yaml': '',
      'docs/guide.md': ['[back](../README.md) [up](../runtime/) [gone](reference/cli.md#serve)', '`charts/app/`'].join('\n'),
      'README.md': [
        '[guide](docs/guide.md#setup) [missing](docs/missing.md) [web](https://example.com/x.md) [here](#usage)',
        '`runtime/server/drain.ts` `runtime/server/gone.ts` `runtime/server/drain.ts:12:3` `runtime/**/*.ts` `runtime/**/*.md`',
        '`charts/<name>/templates/` `src/webhooks/x.ts` `npm run docs` `[x](nowhere.md)` `runtime/server:`',
        '```sh',
        'cat runtime/missing.ts  [also](not-checked.md)  `runtime/missing.ts`',
        '```',
        '[ref]: docs/gone.md',
      ].join('\n'),
    });
    const result = checkDocs(root, files);
    expect(result.problems).toEqual([
      { file: 'README.md', line: 1, message: 'link to docs/missing.md: no such file or folder in the repository' },
      { file: 'README.md', line: 2, message: '`runtime/server/gone.ts`: no such file or folder in the repository' },
      { file: 'README.md', line: 2, message: '`runtime/**/*.md` matches no file in the repository' },
      { file: 'README.md', line: 7, message: 'link to docs/gone.md: no such file or folder in the repository' },
      { file: 'docs/guide.md', line: 1, message: 'link to reference/cli.md#serve: no such file or folder in the repository' },
    ]);
  });

  it('runs in npm test', () => {
    const scripts = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['docs:check']).toBe('node scripts/docs/generate-reference.ts --check && node scripts/docs/check-links.ts');
    expect(scripts.test).toContain('npm run --silent docs:check');
  });
});
