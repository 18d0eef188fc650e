/**
 * CRDs end to end: `shaper-gen manifests` on a project with a kind and a
 * webhook, the chart rendered and linted by the pinned helm, every rendered
 * CRD decoded strictly by the wire oracle (apiextensions.k8s.io/v1), the
 * crds.install and crds.keep values, --check on stale and obsolete CRD
 * templates, and nothing written on a bad marker or a chart without the values.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { scanCustomResources } from '../../../generator/src/crd/generate.js';
import { runManifests } from '../../../generator/src/manifests/run-manifests.js';
import { createFixtureProject, type FixtureProject } from '../../support/fixture-project.js';
import { findObject, helmLint, helmTemplate, helmTemplateText } from '../../support/helm.js';
import { judgeManifests } from '../../../support/oracle.js';
import { EXAMPLE_GROUP, WIDGET } from '../../support/crd-fixture-sources.js';

const HOOKS = `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-widget', mutating: false, rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE'], scope: 'Cluster' }] })
export class WidgetValidator { validateCreate() {} }
`;
const CRD_FILE = 'charts/shaper-webhooks/templates/crds/example.com_widgets.yaml';

let project: FixtureProject;
let log: MockInstance;
let error: MockInstance;
const printed = (spy: MockInstance) => spy.mock.calls.map((call) => call.join(' ')).join('\n');
const chart = () => project.file('charts/shaper-webhooks');

beforeEach(() => {
  project = createFixtureProject({ 'src/api/group.ts': EXAMPLE_GROUP, 'src/api/widget.ts': WIDGET, 'src/hooks.ts': HOOKS });
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
  error = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  project.remove();
});

describe('a generated CRD in the chart', () => {
  it('is written under templates/crds/, renders as the scanned model (every string back as written, {{ included), and passes helm lint --strict and the oracle', async () => {
    expect(await runManifests({}, project.dir)).toBe(0);
    expect(printed(log)).toContain('1 webhook and 1 CRD from 1 of 3 files; 9 files updated');
    expect(printed(log)).toContain(`wrote ${CRD_FILE}`);
    const model = scanCustomResources(
      project.file('tsconfig.json'),
      ['group.ts', 'widget.ts'].map((f) => project.file(`src/api/${f}`)),
      project.dir,
    ).crds[0]!;

    await expect(helmLint(chart())).resolves.toContain('1 chart(s) linted, 0 chart(s) failed');
    const crd = findObject(await helmTemplate(chart(), { release: 'shaper', namespace: 'shaper-system' }), 'CustomResourceDefinition', 'widgets.example.com');
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(crd.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'shaper', 'app.kubernetes.io/name': 'shaper-webhooks', 'app.kubernetes.io/managed-by': 'Helm' });
    expect(crd.spec).toEqual({
      group: 'example.com',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget', shortNames: ['wd', 'wdg'], categories: ['all', 'things'] },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Size', type: 'string', jsonPath: '.spec.size', description: 'The size, small to large', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          selectableFields: [{ jsonPath: '.spec.size' }],
          schema: { openAPIV3Schema: JSON.parse(JSON.stringify(model.versions[0]!.schema)) },
        },
      ],
    });
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.comment['x-kubernetes-validations'][1].rule).toBe("!self.contains('{{')");

    const verdicts = judgeManifests(await helmTemplateText(chart()));
    expect(verdicts.filter((v) => v.kind === 'CustomResourceDefinition')).toEqual([
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'widgets.example.com', problems: [] },
    ]);
  });

  it('is left out with crds.install=false, and loses the keep annotation with crds.keep=false', async () => {
    expect(await runManifests({}, project.dir)).toBe(0);
    const kinds = (await helmTemplate(chart(), { set: { 'crds.install': false } })).map((o) => o.kind);
    expect(kinds).not.toContain('CustomResourceDefinition');
    expect(kinds).toContain('ValidatingWebhookConfiguration');
    const crd = findObject(await helmTemplate(chart(), { set: { 'crds.keep': false } }), 'CustomResourceDefinition', 'widgets.example.com');
    expect(crd.metadata.annotations).toBeUndefined();
  });
});

describe('through the published declarations', () => {
  it("reads shaper-gen's types (KubernetesObject, ObjectMeta, LabelSelector's markers) from dist/*.d.ts as from the sources", () => {
    const files = {
      'src/api/group.ts': EXAMPLE_GROUP,
      'src/api/widget.ts': WIDGET.replace('  enabled?: boolean;', "  enabled?: boolean;\n  selector?: import('shaper-gen').LabelSelector;"),
    };
    const scan = (resolveTo: 'sources' | 'dist') => {
      const fixture = createFixtureProject(files, { resolveTo });
      try {
        return scanCustomResources(
          fixture.file('tsconfig.json'),
          Object.keys(files)
            .map((f) => fixture.file(f))
            .sort(),
          fixture.dir,
        );
      } finally {
        fixture.remove();
      }
    };
    const fromSources = scan('sources');
    expect(fromSources.diagnostics).toEqual([]);
    expect(fromSources.crds[0]!.versions[0]!.schema.properties!.spec!.properties!.selector!['x-kubernetes-map-type']).toBe('atomic');
    expect(scan('dist')).toEqual(fromSources);
  });
});

describe('manifests --check and obsolete CRD templates', () => {
  it('reports a stale CRD, then one whose kind is gone, which a run removes (a CRD template without the generated header is left alone)', async () => {
    expect(await runManifests({}, project.dir)).toBe(0);
    expect(await runManifests({ check: true }, project.dir)).toBe(0);
    expect(printed(log)).toContain('generated files are up to date (1 webhook and 1 CRD)');

    project.write('src/api/widget.ts', WIDGET.replace('enabled?: boolean;', 'enabled?: boolean;\n  added?: string;'));
    expect(await runManifests({ check: true }, project.dir)).toBe(1);
    expect(printed(error)).toMatch(new RegExp(`${CRD_FILE}: line \\d+: expected "                added:", found ".*"`));

    project.write('charts/shaper-webhooks/templates/crds/mine.yaml', '# my own CRD\n');
    project.write('src/api/widget.ts', 'export const NOTHING = 1;\n');
    expect(await runManifests({ check: true }, project.dir)).toBe(1);
    expect(printed(error)).toContain(`${CRD_FILE}: no longer generated (its kind is gone); run \`shaper-gen manifests\` to remove it`);
    expect(await runManifests({}, project.dir)).toBe(0);
    expect(printed(log)).toContain(`removed ${CRD_FILE}`);
    expect(existsSync(project.file(CRD_FILE))).toBe(false);
    expect(existsSync(project.file('charts/shaper-webhooks/templates/crds/mine.yaml'))).toBe(true);
    expect(await runManifests({ check: true }, project.dir)).toBe(0);
  });
});

describe('nothing is written', () => {
  it('on a bad marker, which is printed as file:line:col with the other problems of the run', async () => {
    project.write('src/api/widget.ts', WIDGET.replace('@shaper:maximum {@link MAX_REPLICAS}', '@shaper:maximum lots').replace('@shaper:listType set', '@shaper:listType bag'));
    expect(await runManifests({}, project.dir)).toBe(1);
    expect(printed(error).split('\n')).toEqual([
      'src/api/widget.ts:39:22: @shaper:maximum takes a number, not "lots"',
      'src/api/widget.ts:50:23: @shaper:listType takes one of atomic, set, map, not "bag"',
      'shaper-gen: 2 problems; nothing was written',
    ]);
    expect(existsSync(project.file(CRD_FILE))).toBe(false);
    expect(existsSync(project.file('charts/shaper-webhooks/templates/validating-webhook-configuration.yaml'))).toBe(false);
  });

  it('into a chart without the crds values the CRD templates read', async () => {
    const values = project.read('charts/shaper-webhooks/values.yaml');
    project.write('charts/shaper-webhooks/values.yaml', values.replace(/^crds:\n(?:(?: {2}.*)?\n)*/m, ''));
    expect(await runManifests({}, project.dir)).toBe(1);
    expect(printed(error).split('\n')).toEqual([
      'charts/shaper-webhooks/values.yaml:1:1: values.yaml does not declare crds.install, which the generated CRD templates read (see "Chart contract" in the shaper-gen README)',
      'charts/shaper-webhooks/values.yaml:1:1: values.yaml does not declare crds.keep, which the generated CRD templates read (see "Chart contract" in the shaper-gen README)',
      'shaper-gen: 2 problems; nothing was written',
    ]);
    expect(existsSync(project.file(CRD_FILE))).toBe(false);
  });
});
