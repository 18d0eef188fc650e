/** @shaper-gen/generator's package directory, where scaffold/ and kubernetes-schemas/ live. */
import { fileURLToPath } from 'node:url';

// This module is src/package-root.ts or its build, dist/package-root.js: one level below the package.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function packageRoot(): string {
  return ROOT;
}
