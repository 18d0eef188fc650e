/**
 * `serve --dev` in a project: says when what it is about to serve is older than
 * the sources — a decorated file changed after `shaper-gen manifests` wrote the
 * handlers module, or the module was regenerated but not compiled — instead of
 * serving the old paths without a word. Reads `shaper.yaml` itself: the runtime
 * does not import the generator.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { globSync } from 'tinyglobby';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_EXCLUDE, DEFAULT_SOURCES, defaultHandlersModule } from '../project-layout.js';


const SLACK_MS = 2000;

/** Warnings for the handlers modules `serve` was given, relative to `cwd`; empty when all is current or no shaper.yaml is here. */
export function staleHandlersWarnings(handlers: readonly string[], cwd = process.cwd()): string[] {
  const configFile = path.join(cwd, 'shaper.yaml');
  if (!existsSync(configFile)) return [];
  const config = (parseYaml(readFileSync(configFile, 'utf8')) ?? {}) as { sources?: string[]; exclude?: string[]; handlersModule?: string };
  const generated = path.resolve(cwd, config.handlersModule ?? defaultHandlersModule(cwd));
  if (!existsSync(generated)) return [`${path.relative(cwd, generated)} does not exist: run shaper-gen manifests (or shaper-gen dev)`];
  // Some slack: a checkout writes every file within a moment, in no particular order.
  const written = statSync(generated).mtimeMs;
  const warnings: string[] = [];
  const newer = globSync(config.sources ?? DEFAULT_SOURCES, { cwd, ignore: [...(config.exclude ?? DEFAULT_EXCLUDE), path.relative(cwd, generated)] })
    .filter((file) => /@Webhook\b/.test(readFileSync(path.join(cwd, file), 'utf8')) && statSync(path.join(cwd, file)).mtimeMs > written + SLACK_MS)
    .sort();
  if (newer.length > 0) {
    warnings.push(`${newer.join(', ')} changed after ${path.relative(cwd, generated)} was written: if @Webhook options changed, run shaper-gen manifests and rebuild (shaper-gen dev does both)`);
  }
  for (const module of handlers) {
    const file = path.resolve(cwd, module);
    if (existsSync(file) && statSync(file).mtimeMs < written - SLACK_MS) warnings.push(`${module} is older than ${path.relative(cwd, generated)}: rebuild (npm run build)`);
  }
  return warnings;
}
