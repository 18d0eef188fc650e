/**
 * The type modules of each `types` entry of shaper.yaml, from its CRD files as
 * they are now: what `create types` writes first and `manifests` rewrites (or,
 * with `--check`, compares) on every run, so that the types never drift from
 * the CRDs another project generates.
 */
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { compareText } from '../compare-text.js';
import type { TypesSource } from '../config.js';
import { diagnosticIn, type Diagnostic } from '../diagnostics.js';
import { findCrdFiles, readCrdFiles } from './crd-files.js';
import { TYPES_HEADER, typesModules, type TypesModule } from './modules.js';

export interface TypesGeneration {
  readonly modules: readonly TypesModule[];
  /** Modules an earlier run wrote under the entries' `out` that are no longer generated (a version or CRD gone). */
  readonly obsolete: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

/** `configFile` is where problems with an entry itself (a `from` matching nothing) are reported. */
export async function generateTypes(root: string, entries: readonly TypesSource[], configFile: string): Promise<TypesGeneration> {
  const modules: TypesModule[] = [];
  const obsolete: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const [i, entry] of entries.entries()) {
    const { files, unmatched } = await findCrdFiles(root, entry.from);
    for (const from of unmatched)
      diagnostics.push(diagnosticIn(configFile, `types[${i}].from: ${JSON.stringify(from)} names no CRD file, directory or matching glob: correct it, or remove it from shaper.yaml`));
    const read = readCrdFiles(files);
    const out = path.resolve(root, entry.out);
    const generated = typesModules(read.crds, out, root);
    diagnostics.push(...read.diagnostics, ...generated.diagnostics);
    modules.push(...generated.modules);
    const current = new Set(generated.modules.map((module) => module.path));
    obsolete.push(...writtenModules(out).filter((file) => !current.has(file)));
  }
  return { modules, obsolete, diagnostics };
}

/** The modules under `out` (`<group>/<version>.ts`) that start with the header `create types` writes. */
export function writtenModules(out: string): string[] {
  const files: string[] = [];
  for (const group of entriesOf(out)) {
    if (!group.isDirectory()) continue;
    for (const module of entriesOf(path.join(out, group.name))) {
      const file = path.join(out, group.name, module.name);
      if (module.isFile() && module.name.endsWith('.ts') && isWrittenByCreateTypes(file)) files.push(file);
    }
  }
  return files.sort(compareText);
}

export function isWrittenByCreateTypes(file: string): boolean {
  return readFileSync(file, 'utf8').startsWith(TYPES_HEADER);
}

/** A directory's entries; none when it does not exist. */
function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}
