/**
 * What the package's type declarations ask of a user's install. The
 * declarations each export of package.json reaches (as tsc follows their
 * imports from `types`) name other packages; a user's project type-checks
 * only if `npm install shaper-gen` brought those. So `dependencies` holds
 * exactly what the declarations name and what the bundle loads by name
 * (express); the bundle holds the rest (ADR 0014). `@kubernetes/client-node`
 * is named on purpose without being a dependency: a project that calls
 * `ctx.kube` lists it itself (docs/guides/cached-lookups.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../support/repo-root.js';

interface PackageJson {
  exports: Record<string, string | { types?: string }>;
  dependencies: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson;

/** The packages the reached declarations import. */
function packagesNamed(): Set<string> {
  const named = new Set<string>();
  const reached = new Set<string>();
  const visit = (file: string): void => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s+|\bimport\(\s*)['"]([^'"]+)['"]/g)) {
      if (!specifier!.startsWith('.')) {
        named.add(packageOf(specifier!));
        continue;
      }
      const declaration = path.resolve(path.dirname(file), specifier!).replace(/\.js$/, '.d.ts');
      visit(existsSync(declaration) ? declaration : path.join(declaration.replace(/\.d\.ts$/, ''), 'index.d.ts'));
    }
  };
  for (const target of Object.values(manifest.exports)) {
    if (typeof target === 'object' && target.types) visit(path.join(REPO_ROOT, target.types));
  }
  return named;
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isNodes = (name: string) => name.startsWith('node:') || builtinModules.includes(name);

describe("the package's declarations", () => {
  it('name only its dependencies and Node, and every dependency is named or loaded by name by the bundle', () => {
    const named = packagesNamed();
    const others = [...named].filter((name) => !isNodes(name)).sort();
    expect(others).toEqual(['@kubernetes/client-node', 'express', 'fast-json-patch', 'pino', 'prom-client']);
    const loadedByName = ['express'];
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...new Set([...others.filter((name) => name !== '@kubernetes/client-node'), ...loadedByName])].sort());
  });
});
