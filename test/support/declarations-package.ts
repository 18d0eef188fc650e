/**
 * shaper-gen as an installed package resolves without a build: package.json and
 * the `.d.ts` files `npm run build` would publish, emitted from the sources, so
 * unit tests need no dist/.
 */
import { cpSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '../../support/repo-root.js';

const PUBLIC_ENTRY_POINTS = ['runtime/index.ts', 'runtime/testing/index.ts', 'runtime/server/index.ts'];

/** Writes the package into `dir` (a fixture's node_modules/shaper-gen). */
export function emitDeclarationsPackage(dir: string): void {
  // Loaded here, not on import: most users of fixture projects never need the compiler.
  const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');
  const { config } = ts.readConfigFile(path.join(REPO_ROOT, 'tsconfig.json'), (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT);
  const program = ts.createProgram(
    PUBLIC_ENTRY_POINTS.map((file) => path.join(REPO_ROOT, file)),
    // The build type-checks; this only needs what it would emit.
    { ...options, outDir: path.join(dir, 'dist'), rootDir: REPO_ROOT, emitDeclarationOnly: true, noCheck: true },
  );
  const { diagnostics } = program.emit();
  if (diagnostics.length > 0) throw new Error(`emitting shaper-gen's declarations failed: ${ts.formatDiagnostics(diagnostics, ts.createCompilerHost(options))}`);
  cpSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
}
