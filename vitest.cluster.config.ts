import { defineConfig } from 'vitest/config';
import { generatorAliases, selfAliases } from './vitest.config.js';

// The cluster suite (kindEnv): one environment per file, long start-up, never in parallel.
export default defineConfig({
  resolve: { alias: [...selfAliases, ...generatorAliases] },
  test: {
    include: ['test/cluster/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    // Start-up builds the image (cold: its npm installs) and waits for helm --wait.
    hookTimeout: 600_000,
  },
});
