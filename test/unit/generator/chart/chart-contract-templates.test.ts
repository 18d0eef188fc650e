/**
 * The chart contract is declared once (generator/src/chart/chart-contract.ts): every value a generated
 * template reads must be in it, so that a chart is never checked against a shorter list than the templates use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_CONTRACT } from '../../../../generator/src/chart/chart-contract.js';
import { REPO_ROOT } from '../../../../support/repo-root.js';

const TEMPLATES = path.join(REPO_ROOT, 'templates');
/** Read with a default when absent (`$.Values.policies | default dict`): a chart without them installs every policy. */
const OPTIONAL = ['policies'];

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? templateFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}

describe('the generated templates and the chart contract', () => {
  const text = templateFiles(TEMPLATES)
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const read = [...new Set([...text.matchAll(/\$\.Values\.([A-Za-z0-9_.]+)/g)].map((m) => m[1]!))].sort();

  it('read only values the contract lists (or read with a default)', () => {
    expect(read.filter((value) => ![...CHART_CONTRACT.values, ...CHART_CONTRACT.crdValues, ...OPTIONAL].includes(value))).toEqual([]);
    expect(read.length).toBeGreaterThan(0);
  });

  it('spell no contract name themselves: helpers and the certificate suffix come from the contract', () => {
    expect(text).not.toContain(CHART_CONTRACT.servingCertificateSuffix);
    for (const helper of CHART_CONTRACT.helpers) expect(text).not.toMatch(new RegExp(`include "[^"]*\\.${helper}"`));
  });
});
