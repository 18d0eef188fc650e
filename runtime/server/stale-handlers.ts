/**
 * `serve --dev` in a project: says when what it is about to serve may not be
 * what the sources declare — a source changed since `shaper-gen manifests`
 * generated the handlers module, or the module was regenerated but not
 * compiled — instead of serving the old paths without a word. Reads
 * `shaper.yaml` itself: the runtime does not import the generator.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { globSync } from 'tinyglobby';
import { parse as parseYaml } from 'yaml';
import { changedInputs, digestInputs, readInputsRecord } from '../handlers-inputs.js';
import { DEFAULT_EXCLUDE, DEFAULT_SOURCES, defaultHandlersModule } from '../project-layout.js';

// A checkout writes every file within a moment, in no particular order.
const SLACK_MS = 2000;

/** Warnings for the handlers modules `serve` was given, relative to `cwd`; empty when all is current or no shaper.yaml is here. */
export function staleHandlersWarnings(handlers: readonly string[], cwd = process.cwd()): string[] {
  const configFile = path.join(cwd, 'shaper.yaml');
  if (!existsSync(configFile)) return [];
  const config = (parseYaml(readFileSync(configFile, 'utf8')) ?? {}) as { sources?: string[]; exclude?: string[]; handlersModule?: string };
  const handlersModule = config.handlersModule ?? defaultHandlersModule(cwd);
  const generated = path.resolve(cwd, handlersModule);
  const shown = path.relative(cwd, generated);
  if (!existsSync(generated)) return [`${shown} does not exist: run shaper-gen manifests (or shaper-gen dev)`];
  const warnings: string[] = [];
  // Without a record (a fresh clone, say) there is nothing to compare with; CI's `manifests --check` guards the committed module.
  const recorded = readInputsRecord(cwd, handlersModule);
  if (recorded) {
    const sources = globSync(config.sources ?? DEFAULT_SOURCES, { cwd, ignore: [...(config.exclude ?? DEFAULT_EXCLUDE), shown] });
    const changed = changedInputs(recorded, digestInputs(cwd, sources));
    if (changed.length > 0) {
      warnings.push(`${changed.join(', ')} changed since ${shown} was generated: if @Webhook options changed, run shaper-gen manifests and rebuild (shaper-gen dev does both)`);
    }
  }
  // Times do tell here: the module is rewritten only when its text changes, and a build writes its output after that.
  const written = statSync(generated).mtimeMs;
  for (const module of handlers) {
    const file = path.resolve(cwd, module);
    if (existsSync(file) && statSync(file).mtimeMs < written - SLACK_MS) warnings.push(`${module} is older than ${shown}: rebuild (npm run build)`);
  }
  return warnings;
}
