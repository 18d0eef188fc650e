/**
 * Where a project keeps what `shaper-gen manifests` reads and writes, when
 * `shaper.yaml` does not say: one definition for the generator and for
 * `serve --dev`'s staleness check.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_SOURCES = ['**/*.ts'];
export const DEFAULT_EXCLUDE = ['**/node_modules/**', '**/dist/**', '**/*.d.ts', '**/*.test.ts', '**/*.spec.ts'];

/** The handlers module as compiled (tsconfig.build's outDir), what `serve` and `dev` load unless told otherwise. */
export const DEFAULT_COMPILED_HANDLERS = 'dist/webhooks.generated.js';

/** The generated handlers module, relative to the project root: beside the sources. */
export function defaultHandlersModule(root: string): string {
  return existsSync(path.join(root, 'src')) ? 'src/webhooks.generated.ts' : 'webhooks.generated.ts';
}
