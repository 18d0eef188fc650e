/**
 * The TypeScript compiler the generator parses and checks with: the copy that
 * ts-morph (the declared peer dependency) bundles, loaded on its own. ts-morph's
 * own layer is not used, and loading it costs another ~0.1 s on every run.
 * Loaded on first use only, so commands and runs that never scan do not pay for it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ts } from 'ts-morph';

export type TypeScript = typeof ts;

let loaded: TypeScript | undefined;

export function loadTypeScript(): TypeScript {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  // Throws MODULE_NOT_FOUND naming 'ts-morph' when the peer is missing (see generator-packages.ts).
  const tsMorph = require.resolve('ts-morph');
  let compiler: TypeScript | undefined;
  try {
    const common = createRequire(tsMorph).resolve('@ts-morph/common');
    compiler = require(path.join(path.dirname(common), 'typescript.js')) as TypeScript;
  } catch {
    // Another layout of ts-morph's internals: go through its public export.
  }
  if (typeof compiler?.createSourceFile !== 'function') compiler = (require('ts-morph') as { ts: TypeScript }).ts;
  return (loaded = compiler);
}
