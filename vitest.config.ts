import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import the package's TypeScript sources by its own name ("shaper-gen", "shaper-gen/testing"),
// as tsconfig.json's "paths" do: each export's type declarations mapped back to their source (the code
// it runs is a bundle, scripts/bundle-runtime.ts).
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  name: string;
  exports: Record<string, string | { types?: string }>;
};
export const selfAliases = Object.entries(pkg.exports)
  .flatMap(([subpath, targets]) => (typeof targets === 'object' && targets.types ? [[subpath, targets.types] as const] : []))
  .map(([subpath, declarations]) => ({
    find: new RegExp(`^${pkg.name}${subpath.slice(1).replace('/', '\\/')}$`),
    replacement: fileURLToPath(new URL(declarations.replace(/^\.\/dist\//, './').replace(/\.d\.ts$/, '.ts'), import.meta.url)),
  }));

/** The test kit's policy evaluator, from the generator's sources like the package's own exports. */
export const generatorAliases = [
  { find: /^@shaper-gen\/generator\/policy$/, replacement: fileURLToPath(new URL('./generator/src/policy/evaluate/index.ts', import.meta.url)) },
  { find: /^@shaper-gen\/generator\/testing$/, replacement: fileURLToPath(new URL('./generator/src/testing/index.ts', import.meta.url)) },
];

export default defineConfig({
  resolve: { alias: [...selfAliases, ...generatorAliases] },
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts', 'sample/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
