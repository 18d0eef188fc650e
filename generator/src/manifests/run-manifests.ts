/**
 * `shaper-gen manifests` end to end: load the config, generate, then write,
 * check (`--check`, for CI) or print (`--stdout`), and print diagnostics as
 * `file:line:col: message`; turns the outcome into an exit code.
 */
import path from 'node:path';
import { ConfigError, countOf, listCounts, writeInputsRecord, type ManifestsFlags } from 'shaper-gen/internal/generator';
import { loadGeneratorConfig } from '../config.js';
import { formatDiagnostic } from '../diagnostics.js';
import { generateManifests, type GenerationResult } from './manifests.js';
import { findStaleFiles, removeObsoleteFiles, writeGeneratedFiles } from './output.js';
import { staticOutputOf } from '../static/settings.js';

/** Runs `shaper-gen manifests`; returns the exit code. */
export async function runManifests(flags: ManifestsFlags, cwd = process.cwd()): Promise<number> {
  const started = performance.now();
  const relative = (file: string) => path.relative(cwd, file) || file;
  try {
    const config = loadGeneratorConfig(flags.config, cwd);
    const staticOutput = staticOutputOf(config, flags, cwd);
    const result = await generateManifests(config, staticOutput ? { static: staticOutput } : {});
    for (const warning of result.warnings) console.error(formatDiagnostic(warning, cwd));
    if (flags.stdout) {
      for (const file of result.files) process.stdout.write(`# ---- ${relative(file.path)}\n${file.content}`);
      return 0;
    }
    if (flags.check) {
      const stale = findStaleFiles(result.files, result.obsolete);
      if (stale.length === 0) {
        console.log(`shaper-gen: generated files are up to date (${declared(result)})`);
        return 0;
      }
      console.error(`shaper-gen: ${countOf(stale.length, 'generated file')} ${stale.length === 1 ? 'is' : 'are'} stale; run \`shaper-gen manifests\` and commit the result:`);
      for (const file of stale) console.error(`  ${relative(file.path)}: ${file.reason}`);
      return 1;
    }
    const changed = [...writeGeneratedFiles(result.files), ...removeObsoleteFiles(result.obsolete)];
    // What `serve --dev` compares its handlers module with: static files are no part of it.
    if (!staticOutput) writeInputsRecord(config.root, config.handlersModule, result.inputs);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    console.log(`shaper-gen: ${declared(result)} from ${result.candidateFiles} of ${countOf(result.scannedFiles, 'file')}; ` + `${countOf(changed.length, 'file')} updated in ${seconds}s`);
    for (const file of changed) console.log(`  ${result.obsolete.includes(file) ? 'removed' : 'wrote'} ${relative(file)}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const diagnostic of error.problems) console.error(formatDiagnostic(diagnostic, cwd));
    console.error(`shaper-gen: ${countOf(error.problems.length, 'problem')}; nothing was written`);
    return 1;
  }
}

/** "2 webhooks, 1 policy, 1 conversion and 2 CRDs": webhooks always, the others when there are any. */
function declared(result: GenerationResult): string {
  return listCounts(
    countOf(result.webhooks.length, 'webhook'),
    [result.policies.length, 'policy', 'policies'],
    [result.conversions.length, 'conversion'],
    [result.crds.length, 'CRD'],
    [result.typesModules, 'types module from CRDs', 'types modules from CRDs'],
  );
}
