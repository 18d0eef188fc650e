/** The package.json files of shaper-gen (the runtime, resolved as this package imports it) and of this package. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageRoot } from '../package-root.js';

export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
}

export function runtimeManifest(): PackageManifest {
  return createRequire(import.meta.url)('shaper-gen/package.json') as PackageManifest;
}

export function generatorManifest(): PackageManifest {
  return JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as PackageManifest;
}
