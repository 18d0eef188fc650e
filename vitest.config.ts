import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests import the package's own TypeScript sources (see package.json "exports").
    conditions: ['shaper-gen-source'],
  },
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts', 'sample/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
