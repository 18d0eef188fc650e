/** The package.json init writes: shaper-gen a dependency, the generator a dev dependency, versions from the two packages' package.json files. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mergePackageJson } from '../../../../generator/src/init/package-json.js';

interface Manifest {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
const runtime = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as Manifest;
const generator = JSON.parse(readFileSync(new URL('../../../../generator/package.json', import.meta.url), 'utf8')) as Manifest;

describe('mergePackageJson', () => {
  it('gives a new project shaper-gen as its one dependency; the generator, client-node (types) and the tools as dev dependencies', () => {
    const { json } = mergePackageJson(undefined, 'team-guard', false);
    expect({ dependencies: json.dependencies, devDependencies: json.devDependencies }).toEqual({
      dependencies: { 'shaper-gen': `^${runtime.version}` },
      devDependencies: {
        '@shaper-gen/generator': `^${generator.version}`,
        '@kubernetes/client-node': runtime.devDependencies['@kubernetes/client-node'],
        typescript: runtime.devDependencies.typescript,
        vitest: runtime.devDependencies.vitest,
        vite: runtime.devDependencies.vite,
        '@types/node': runtime.devDependencies['@types/node'],
      },
    });
  });

  it('keeps a generator installed as a production dependency where it is, and says it would reach the image', () => {
    const existing = { name: 'team-guard', type: 'module', dependencies: { 'shaper-gen': '^0.1.0', '@shaper-gen/generator': '^0.1.0' } };
    const { json, kept } = mergePackageJson(existing, 'team-guard', false);
    expect(kept).toEqual(['dependencies.@shaper-gen/generator (move it to devDependencies: the image would hold the generator)']);
    expect((json.dependencies as Record<string, string>)['@shaper-gen/generator']).toBe('^0.1.0');
    expect((json.devDependencies as Record<string, string>)['@shaper-gen/generator']).toBeUndefined();
  });
});
