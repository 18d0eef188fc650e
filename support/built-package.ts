/**
 * The built package's entry points as package.json's "exports" name them: what a handler file written outside
 * the checkout imports, so that `serve` and the handlers share one copy of the runtime (the bundle, ADR 0014).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './repo-root.ts';

type Subpath = '.' | './server' | './testing';

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<Subpath, { default: string }> };

/** The file URL of the built module `shaper-gen` (or `shaper-gen/server`, `shaper-gen/testing`) resolves to. */
export function builtEntry(subpath: Subpath = '.'): string {
  return pathToFileURL(path.join(REPO_ROOT, manifest.exports[subpath].default)).href;
}
