/**
 * `create types` records its CRDs under `types` in shaper.yaml, keeping the
 * file's comments and layout, and the generator config refuses an entry
 * without CRDs or directory, or sharing another's directory.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from 'shaper-gen/internal/generator';
import { loadGeneratorConfig } from '../../../../generator/src/config.js';
import { recordTypesSource } from '../../../../generator/src/crd-types/config-record.js';
import { formatDiagnostic } from '../../../../generator/src/diagnostics.js';

let dir: string;
const file = () => path.join(dir, 'shaper.yaml');
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-types-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SHAPER_YAML = `# The team's generator settings.
apiVersion: shaper-gen.io/v1alpha1
kind: GeneratorConfig
sources: ["src/**/*.ts"] # everything
chartDir: charts/guard
`;

describe('recording the CRDs in shaper.yaml', () => {
  it('adds a types entry after the settings, keeping comments and flow lists, and reads back as written', () => {
    writeFileSync(file(), SHAPER_YAML);
    expect(recordTypesSource(file(), dir, { from: ['config/crd/bases'], out: 'src/api' })).toBe(file());
    expect(readFileSync(file(), 'utf8')).toBe(`${SHAPER_YAML}types:
  # CRDs another project owns: \`shaper-gen create types\` wrote their TypeScript types into \`out\`, and \`manifests\` keeps them in step.
  - from:
      - config/crd/bases
    out: src/api
`);
    expect(loadGeneratorConfig(undefined, dir).types).toEqual([{ from: ['config/crd/bases'], out: 'src/api' }]);
  });

  it("sets the from of the entry with the same out, adds another out's, and leaves the file alone when nothing changes", () => {
    writeFileSync(file(), SHAPER_YAML);
    recordTypesSource(file(), dir, { from: ['crds/a.yaml'], out: 'src/api' });
    expect(recordTypesSource(file(), dir, { from: ['crds/a.yaml', 'crds/b.yaml'], out: './src/api' })).toBe(file());
    expect(recordTypesSource(file(), dir, { from: ['vendor/crds'], out: 'src/vendor' })).toBe(file());
    expect(recordTypesSource(file(), dir, { from: ['vendor/crds'], out: 'src/vendor' })).toBeUndefined();
    expect(loadGeneratorConfig(undefined, dir).types).toEqual([
      { from: ['crds/a.yaml', 'crds/b.yaml'], out: 'src/api' },
      { from: ['vendor/crds'], out: 'src/vendor' },
    ]);
  });

  it('writes a shaper.yaml with only what it needs where there is none', () => {
    expect(existsSync(file())).toBe(false);
    expect(recordTypesSource(undefined, dir, { from: ['crds'], out: 'src/api' })).toBe(file());
    expect(readFileSync(file(), 'utf8')).toBe(`apiVersion: shaper-gen.io/v1alpha1
kind: GeneratorConfig
types:
  # CRDs another project owns: \`shaper-gen create types\` wrote their TypeScript types into \`out\`, and \`manifests\` keeps them in step.
  - from:
      - crds
    out: src/api
`);
  });
});

describe('types entries refused', () => {
  it('names an entry without from or out, and a second entry for one out, at shaper.yaml', () => {
    writeFileSync(file(), `${SHAPER_YAML}types:\n  - out: src/api\n  - from: [crds]\n    out: src/a\n  - from: [more]\n    out: src/a/\n`);
    let problems: string[] = [];
    try {
      loadGeneratorConfig(undefined, dir);
    } catch (error) {
      problems = (error as ConfigError).problems.map((problem) => formatDiagnostic(problem, dir));
    }
    expect(problems).toEqual([
      'shaper.yaml:1:1: types[0] needs `from` (CRD files, directories or globs) and `out` (a directory): `shaper-gen create types --from <crds> --out <dir>` writes both',
      'shaper.yaml:1:1: types[2]: out "src/a/" is another entry\'s too: list all of its CRDs in that entry\'s `from`',
    ]);
  });
});
