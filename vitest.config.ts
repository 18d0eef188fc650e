import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Vite does not resolve a package's imports of itself ("shaper-gen", "shaper-gen/testing")
// the way Node does; alias each export to its TypeScript source, read from package.json.
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  name: string;
  exports: Record<string, { 'shaper-gen-source'?: string }>;
};
export const selfAliases = Object.entries(pkg.exports)
  .filter(([, targets]) => targets['shaper-gen-source'])
  .map(([subpath, targets]) => ({
    find: new RegExp(`^${pkg.name}${subpath.slice(1).replace('/', '\\/')}$`),
    replacement: fileURLToPath(new URL(targets['shaper-gen-source']!, import.meta.url)),
  }));

export default defineConfig({
  resolve: {
    // Tests import the package's own TypeScript sources (see package.json "exports").
    conditions: ['shaper-gen-source'],
    alias: selfAliases,
  },
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts', 'sample/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
