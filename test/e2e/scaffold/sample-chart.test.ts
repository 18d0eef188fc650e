/**
 * The sample's chart is the product's chart scaffold filled in with
 * sample/chart.json, plus what `shaper-gen manifests` generates into it
 * (the webhook templates, and the CRDs in templates/crds/).
 * SHAPER_UPDATE_SAMPLE_CHART=1 rewrites it from the scaffold.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_CHART_TEMPLATES } from '../../../generator/src/chart/generated-templates.js';
import { chartScaffold, type ChartVariables } from '../../../generator/src/init/scaffold.js';
import { REPO_ROOT } from '../../support/fixture-project.js';

const GENERATED = GENERATED_CHART_TEMPLATES.map((file) => `templates/${file}`);

describe('charts/shaper-webhooks', () => {
  it('is the chart scaffold filled in for the sample, plus the generated files', () => {
    const variables = JSON.parse(readFileSync(path.join(REPO_ROOT, 'sample/chart.json'), 'utf8')) as ChartVariables;
    const expected = Object.fromEntries(chartScaffold(variables).map((file) => [file.path, file.content]));
    if (process.env.SHAPER_UPDATE_SAMPLE_CHART === '1') {
      for (const [file, content] of Object.entries(expected)) {
        mkdirSync(path.dirname(path.join(REPO_ROOT, file)), { recursive: true });
        writeFileSync(path.join(REPO_ROOT, file), content);
      }
    }
    const chartDir = `charts/${variables.name}`;
    const actual = Object.fromEntries(
      listFiles(path.join(REPO_ROOT, chartDir))
        .filter((file) => !GENERATED.includes(file) && !file.startsWith('templates/crds/'))
        .map((file) => [`${chartDir}/${file}`, readFileSync(path.join(REPO_ROOT, chartDir, file), 'utf8')]),
    );
    expect(actual, 'run SHAPER_UPDATE_SAMPLE_CHART=1 npx vitest run test/e2e/scaffold/sample-chart.test.ts').toEqual(expected);
  });
});

function listFiles(root: string, dir = ''): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    return entry.isDirectory() ? listFiles(root, relative) : [relative];
  });
}
