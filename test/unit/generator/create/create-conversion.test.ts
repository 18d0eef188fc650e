/**
 * What `shaper-gen create conversion` writes, held to its two promises in a
 * project with a kind in two versions: the converter copies every field by
 * name, so that a field renamed or moved in a version's type no longer
 * compiles (checked by tsc, as the project's `npm test` runs it); and the
 * generated round-trip test, over objects generated from the CRD schemas,
 * passes for the generated converter and fails for one that drops an
 * optional field.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { roundTrip } from '@shaper-gen/generator/testing';
import type { Converter } from 'shaper-gen';
import { runCreateConversion } from '../../../../generator/src/create/run-create-conversion.js';
import { createFixtureProject, REPO_ROOT, type FixtureProject } from '../../../support/fixture-project.js';

const TSC = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

const group = (version: string) => `/** @shaper:groupName */\nexport const GROUP = 'example.com';\n/** @shaper:versionName */\nexport const VERSION = '${version}';\n`;
const widget = (spec: string) => `import type { KubernetesObject } from 'shaper-gen';
/**
 * @shaper:resource
 * @shaper:subresource status
 */
export interface Widget extends KubernetesObject {
  spec?: {
${spec}
  };
  status?: { ready?: boolean };
}
`;
const SPEC = `    /** @shaper:minimum 0
     * @shaper:maximum 10 */
    replicas?: number;
    image?: string;
    size?: 'small' | 'large';
    ports?: { name: string; port: number }[];`;

let project: FixtureProject;

beforeAll(async () => {
  project = createFixtureProject({
    'src/api/v1/group.ts': group('v1'),
    'src/api/v1/widget.ts': widget(SPEC).replace('@shaper:resource\n', '@shaper:resource\n * @shaper:storageversion\n'),
    'src/api/v2/group.ts': group('v2'),
    'src/api/v2/widget.ts': widget(SPEC),
  });
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  expect(await runCreateConversion({ group: 'example.com', kind: 'Widget', hub: 'v2' }, project.dir)).toBe(0);
  vi.restoreAllMocks();
}, 60_000);
afterAll(() => project.remove());

/** The project's type errors outside its tests (their runner is not installed in the fixture). */
function typeErrors(): string[] {
  return typeCheck()
    .split('\n')
    .filter((line) => line.includes('error TS'));
}

function typeCheck(): string {
  project.write('tsconfig.check.json', JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, exclude: ['src/**/*.test.ts'] }));
  return spawnSync(process.execPath, [TSC, '-p', 'tsconfig.check.json'], { cwd: project.dir, encoding: 'utf8' }).stdout;
}

/** The converter class from the project's file, as its test imports it. */
async function converterFrom(file: string): Promise<new () => Converter> {
  return ((await import(project.file(file))) as { WidgetConversion: new () => Converter }).WidgetConversion;
}

describe('create conversion', () => {
  it('writes a converter naming every field, and a test running the round trip over schema-generated objects', () => {
    const converter = project.read('src/conversion/widget-conversion.ts');
    expect(converter).toContain(
      [
        'const v1: SpokeConversion<WidgetV1, WidgetV2> = {',
        '  toHub: (spoke): WidgetV2 => ({',
        '    apiVersion: spoke.apiVersion,',
        '    kind: spoke.kind,',
        '    metadata: spoke.metadata,',
        '    spec: spoke.spec && {',
        '      image: spoke.spec.image,',
        '      ports: spoke.spec.ports?.map((item2) => ({',
        '        name: item2.name,',
        '        port: item2.port,',
        '      })),',
        '      replicas: spoke.spec.replicas,',
        '      size: spoke.spec.size,',
        '    },',
        '    status: spoke.status && {',
        '      ready: spoke.status.ready,',
        '    },',
        '  }),',
      ].join('\n'),
    );
    expect(project.read('src/conversion/widget-conversion.test.ts')).toContain('const runs = await roundTrip(WidgetConversion);');
  });

  it('compiles as written', () => {
    expect(typeErrors()).toEqual([]);
  });

  it('passes its round trip: v1 and v2 objects generated from their schemas come back whole', async () => {
    const runs = await roundTrip(await converterFrom('src/conversion/widget-conversion.ts'), { root: project.dir, runs: 100 });
    expect(runs).toEqual([
      { path: 'v1 → v2 → v1', cases: 100 },
      { path: 'v2 → v1 → v2', cases: 100 },
    ]);
  }, 60_000);

  it('fails its round trip once the converter drops an optional field', async () => {
    const dropping = project.read('src/conversion/widget-conversion.ts').replace('      image: spoke.spec.image,\n', '');
    project.write('src/conversion/dropping-conversion.ts', dropping);
    try {
      await expect(roundTrip(await converterFrom('src/conversion/dropping-conversion.ts'), { root: project.dir, runs: 100 })).rejects.toThrow(
        /Counterexample: \[\{"apiVersion":"example\.com\/v1","kind":"Widget","metadata":\{"name":"a"\},"spec":\{"image":""\}\}\][\s\S]*v1 → v2 → v1 came back as \{"apiVersion":"example\.com\/v1","kind":"Widget","metadata":\{"name":"a"\},"spec":\{\}\}/,
      );
    } finally {
      project.write('src/conversion/dropping-conversion.ts', 'export {};\n');
    }
  }, 60_000);

  it('no longer compiles once a field moves in one version: replicas under scale in v2', () => {
    const v2 = project.read('src/api/v2/widget.ts');
    project.write('src/api/v2/widget.ts', v2.replace('    replicas?: number;', '    scale?: { replicas?: number };'));
    try {
      const converter = 'src/conversion/widget-conversion.ts';
      const lines = readFileSync(project.file(converter), 'utf8').split('\n');
      const line = (text: string) => lines.findIndex((l) => l === text) + 1;
      const output = typeCheck();
      expect(
        output
          .split('\n')
          .filter((l) => l.includes('error TS'))
          .map((error) => error.replace(/: error (TS\d+): .*/, ': $1')),
      ).toEqual([`${converter}(${line('      replicas: spoke.spec.replicas,')},7): TS2322`, `${converter}(${line('      replicas: hub.spec.replicas,')},26): TS2339`]);
      expect(output).toContain("Object literal may only specify known properties, and 'replicas' does not exist in type");
      expect(output).toContain("error TS2339: Property 'replicas' does not exist on type");
    } finally {
      project.write('src/api/v2/widget.ts', v2);
    }
  });
});
