import { defineConfig } from 'vitest/config';

// Vitest 4.1 on Vite 7 (pinned in package.json): Vite 7 transforms TypeScript with
// esbuild, which lowers the TC39 decorators @Webhook uses; Vite 8's Oxc does not.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // runPolicy's first call in a test process loads the API server's CEL (WebAssembly): seconds on a busy machine.
    testTimeout: 30_000,
  },
});
