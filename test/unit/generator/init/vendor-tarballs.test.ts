/** init's vendoring of shaper-gen's tarballs into vendor/, on real files. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vendorTarballs } from '../../../../generator/src/init/vendor-tarballs.js';

const PACKAGES = ['shaper-gen', '@shaper-gen/generator'];
let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

/** A project directory `app` in a scratch directory, with `files` around it (paths relative to the scratch directory). */
function scratch(files: Record<string, string>): string {
  work = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-vendor-'));
  mkdirSync(path.join(work, 'app'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), content);
  }
  return path.join(work, 'app');
}

describe('vendorTarballs', () => {
  it('copies the tarballs shaper-gen and the generator were installed from into vendor/ and points package.json at the copies', () => {
    const project = scratch({ 'releases/shaper-gen-0.1.0.tgz': 'runtime', 'generator.tgz': 'generator', 'app/left-pad.tgz': 'other' });
    const json = {
      dependencies: { 'shaper-gen': 'file:../releases/shaper-gen-0.1.0.tgz', 'left-pad': 'file:left-pad.tgz', '@kubernetes/client-node': '^2.0.1' },
      devDependencies: { '@shaper-gen/generator': 'file:../generator.tgz', typescript: '~6.0.3' },
    };
    expect(vendorTarballs(json, project, PACKAGES)).toEqual({
      vendored: [
        { entry: 'dependencies.shaper-gen', from: 'file:../releases/shaper-gen-0.1.0.tgz', to: 'file:vendor/shaper-gen-0.1.0.tgz' },
        { entry: 'devDependencies.@shaper-gen/generator', from: 'file:../generator.tgz', to: 'file:vendor/generator.tgz' },
      ],
      advice: [],
    });
    expect(json).toEqual({
      dependencies: { 'shaper-gen': 'file:vendor/shaper-gen-0.1.0.tgz', 'left-pad': 'file:left-pad.tgz', '@kubernetes/client-node': '^2.0.1' },
      devDependencies: { '@shaper-gen/generator': 'file:vendor/generator.tgz', typescript: '~6.0.3' },
    });
    const vendor = path.join(project, 'vendor');
    expect(Object.fromEntries(readdirSync(vendor).map((file) => [file, readFileSync(path.join(vendor, file), 'utf8')]))).toEqual({
      'generator.tgz': 'generator',
      'shaper-gen-0.1.0.tgz': 'runtime',
    });
  });

  it('vendors a tarball inside the project but outside vendor/ too: the Dockerfile copies only vendor/ before installing', () => {
    const project = scratch({ 'app/shaper-gen-0.1.0.tgz': 'runtime' });
    const json = { dependencies: { 'shaper-gen': 'file:shaper-gen-0.1.0.tgz' } };
    expect(vendorTarballs(json, project, PACKAGES).vendored).toEqual([{ entry: 'dependencies.shaper-gen', from: 'file:shaper-gen-0.1.0.tgz', to: 'file:vendor/shaper-gen-0.1.0.tgz' }]);
    expect(json).toEqual({ dependencies: { 'shaper-gen': 'file:vendor/shaper-gen-0.1.0.tgz' } });
  });

  it('leaves registry versions and tarballs already in vendor/ as they are, and writes nothing', () => {
    const project = scratch({ 'app/vendor/shaper-gen-0.1.0.tgz': 'runtime' });
    const json = { dependencies: { 'shaper-gen': 'file:vendor/shaper-gen-0.1.0.tgz' }, devDependencies: { '@shaper-gen/generator': '^0.1.0' } };
    const before = structuredClone(json);
    expect(vendorTarballs(json, project, PACKAGES)).toEqual({ vendored: [], advice: [] });
    expect(json).toEqual(before);
    expect(readdirSync(path.join(project, 'vendor'))).toEqual(['shaper-gen-0.1.0.tgz']);
  });

  it('says how to vendor a directory it cannot copy as a tarball (a linked checkout)', () => {
    const project = scratch({ 'shaper-gen/package.json': '{}' });
    const json = { dependencies: { 'shaper-gen': 'file:../shaper-gen' } };
    expect(vendorTarballs(json, project, PACKAGES)).toEqual({
      vendored: [],
      advice: ["dependencies.shaper-gen is file:../shaper-gen, outside the image's build context: npm pack it into vendor/ and npm install the tarball from there"],
    });
    expect(json).toEqual({ dependencies: { 'shaper-gen': 'file:../shaper-gen' } });
  });
});
