/**
 * `shaper-gen create types`: TypeScript types from CRDs another project owns.
 * Reads the CRDs, writes one module per group and version (over a module it
 * wrote before, never over another file: then nothing is written), records
 * the CRDs under `types` in shaper.yaml for `manifests` to keep the modules in
 * step, and prints what to import.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CreateTypesFlags } from 'shaper-gen/internal/generator';
import { directoryKey, loadGeneratorConfig, type TypesSource } from '../config.js';
import { recordTypesSource } from '../crd-types/config-record.js';
import { findCrdFiles } from '../crd-types/crd-files.js';
import { generateTypes, isWrittenByCreateTypes } from '../crd-types/generate.js';
import { formatDiagnostic, sortDiagnostics } from '../diagnostics.js';
import { removeObsoleteFiles, writeGeneratedFiles } from '../manifests/output.js';
import { CreateApiError } from './api-request.js';
import { asCreateCommand, manifestsCommand } from './run-create-api.js';

export const DEFAULT_TYPES_OUT = 'src/api';

export function runCreateTypesCommand(flags: CreateTypesFlags, cwd = process.cwd()): Promise<number> {
  return asCreateCommand('create types', () => runCreateTypes(flags, cwd), cwd);
}

export async function runCreateTypes(flags: CreateTypesFlags, cwd = process.cwd()): Promise<number> {
  const config = loadGeneratorConfig(flags.config, cwd);
  // Recorded relative to the config's directory, as every path in shaper.yaml is.
  const fromRoot = (given: string) => path.relative(config.root, path.resolve(cwd, given)).split(path.sep).join('/') || '.';
  const out = fromRoot(flags.out ?? path.relative(cwd, path.join(config.root, DEFAULT_TYPES_OUT)));
  const { unmatched } = await findCrdFiles(config.root, flags.from.map(fromRoot));
  if (unmatched.length > 0) throw new CreateApiError(`--from ${unmatched.join(' ')}: no such CRD file, directory or matching glob`);
  const earlier = config.types.find((entry) => directoryKey(entry.out) === directoryKey(out));
  const entry: TypesSource = { from: [...new Set([...(earlier?.from ?? []), ...flags.from.map(fromRoot)])], out };
  const configFile = config.configFile ?? path.join(config.root, 'shaper.yaml');
  const { modules, obsolete, diagnostics } = await generateTypes(config.root, [entry], configFile);
  const relative = (file: string) => path.relative(cwd, file) || '.';
  if (diagnostics.length > 0) {
    for (const diagnostic of sortDiagnostics(diagnostics)) console.error(formatDiagnostic(diagnostic, cwd));
    console.error(`shaper-gen create types: ${diagnostics.length} problem(s) in the CRDs; nothing was written`);
    return 1;
  }
  const foreign = modules.find((module) => existsSync(module.path) && !isWrittenByCreateTypes(module.path));
  if (foreign) throw new CreateApiError(`${relative(foreign.path)} exists and was not written by create types, which overwrites only its own modules: move it away, or pass another --out`);
  const changed = new Set([...writeGeneratedFiles(modules), ...removeObsoleteFiles(obsolete)]);
  const recorded = recordTypesSource(config.configFile, config.root, entry);
  console.log(`shaper-gen create types: ${modules.length} module(s) from ${entry.from.join(', ')} into ${relative(path.resolve(config.root, out))}`);
  for (const module of modules) console.log(`  ${changed.has(module.path) ? 'wrote' : 'unchanged'} ${relative(module.path)}: ${module.kinds.join(', ')}`);
  for (const file of obsolete) console.log(`  removed ${relative(file)}`);
  if (recorded) console.log(`  recorded the CRDs under types in ${relative(recorded)}`);
  console.log(
    `next: import GROUP, VERSION, the resources' constants and the kinds' interfaces from these modules for handlers, tests and policies; ${manifestsCommand(config.root)} rewrites them when the CRDs change, and manifests --check fails until it has (guide: types from CRDs)`,
  );
  return 0;
}
