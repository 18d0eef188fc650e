/**
 * `shaper-gen manifests` end to end: load the config, generate, then write,
 * check (`--check`, for CI) or print (`--stdout`), and print diagnostics as
 * `file:line:col: message`; turns the outcome into an exit code.
 */
import path from 'node:path';
import { ConfigError, writeInputsRecord, type ManifestsFlags } from 'shaper-gen/internal/generator';
import { loadGeneratorConfig } from '../config.js';
import { formatDiagnostic } from '../diagnostics.js';
import { generateManifests } from './manifests.js';
import { findStaleFiles, removeObsoleteFiles, writeGeneratedFiles } from './output.js';

/** Runs `shaper-gen manifests`; returns the exit code. */
export async function runManifests(flags: ManifestsFlags, cwd = process.cwd()): Promise<number> {
  const started = performance.now();
  const relative = (file: string) => path.relative(cwd, file) || file;
  try {
    const config = loadGeneratorConfig(flags.config, cwd);
    const result = await generateManifests(config);
    if (flags.stdout) {
      for (const file of result.files) process.stdout.write(`# ---- ${relative(file.path)}\n${file.content}`);
      return 0;
    }
    if (flags.check) {
      const stale = findStaleFiles(result.files, result.obsolete);
      if (stale.length === 0) {
        console.log(`shaper-gen: generated files are up to date (${result.webhooks.length} webhooks${crdCount(result.crds.length)}${typesCount(result.typesModules)})`);
        return 0;
      }
      console.error(`shaper-gen: ${stale.length} generated file(s) are stale; run \`shaper-gen manifests\` and commit the result:`);
      for (const file of stale) console.error(`  ${relative(file.path)}: ${file.reason}`);
      return 1;
    }
    const changed = [...writeGeneratedFiles(result.files), ...removeObsoleteFiles(result.obsolete)];
    writeInputsRecord(config.root, config.handlersModule, result.inputs);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const policies = result.policies.length > 0 ? ` and ${result.policies.length} policies` : '';
    console.log(
      `shaper-gen: ${result.webhooks.length} webhooks${policies} from ${result.candidateFiles} of ${result.scannedFiles} files${crdCount(result.crds.length)}${typesCount(result.typesModules)}; ` +
        `${changed.length} file(s) updated in ${seconds}s`,
    );
    for (const file of changed) console.log(`  ${result.obsolete.includes(file) ? 'removed' : 'wrote'} ${relative(file)}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const diagnostic of error.problems) console.error(formatDiagnostic(diagnostic, cwd));
    console.error(`shaper-gen: ${error.problems.length} problem(s); nothing was written`);
    return 1;
  }
}

/** ", 2 CRDs" when the sources declare kinds; nothing otherwise, as before CRDs were generated. */
function crdCount(count: number): string {
  return count === 0 ? '' : `, ${count} CRD${count === 1 ? '' : 's'}`;
}

/** ", 2 type modules from CRDs" when shaper.yaml lists `types`. */
function typesCount(count: number): string {
  return count === 0 ? '' : `, ${count} type module${count === 1 ? '' : 's'} from CRDs`;
}
