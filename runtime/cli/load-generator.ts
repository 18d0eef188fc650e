/**
 * `init`, `manifests` and `dev` run in @shaper-gen/generator, a dev dependency
 * of the user's project, so that an image that only serves never holds the
 * TypeScript compiler. The CLI parses their flags itself and resolves the
 * generator from the project (the working directory) when one of them runs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CreateApiFlags, CreateConversionFlags, CreateTypesFlags } from './create-command.js';
import type { DevFlags } from './dev-command.js';
import type { InitFlags } from './init-command.js';
import type { ManifestsFlags } from './manifests-command.js';
import { SHAPER_GEN_VERSION } from './package-version.js';

export const GENERATOR_PACKAGE = '@shaper-gen/generator';

/** The generator's entry module's default export; each command returns its exit code. */
export interface GeneratorCommands {
  init(dir: string, flags: InitFlags): Promise<number>;
  manifests(flags: ManifestsFlags): Promise<number>;
  dev(flags: DevFlags): Promise<number>;
  createApi(flags: CreateApiFlags): Promise<number>;
  createConversion(flags: CreateConversionFlags): Promise<number>;
  createTypes(flags: CreateTypesFlags): Promise<number>;
}

/** Why the generator cannot run, with the command that fixes it. */
export class GeneratorUnavailable extends Error {}

/** Runs `command` with the project's generator; where there is none, or another version, says how to install it in one line and returns 1. */
export async function withGenerator(command: string, run: (generator: GeneratorCommands) => Promise<number>, cwd = process.cwd()): Promise<number> {
  let generator: GeneratorCommands;
  try {
    generator = await loadGenerator(cwd);
  } catch (error) {
    if (!(error instanceof GeneratorUnavailable)) throw error;
    console.error(`shaper-gen ${command}: ${error.message}`);
    return 1;
  }
  return run(generator);
}

export async function loadGenerator(cwd: string): Promise<GeneratorCommands> {
  const install = `npm install --save-dev ${GENERATOR_PACKAGE}@${SHAPER_GEN_VERSION}`;
  // Resolved as the project's own modules are: from a file in its directory (which need not exist).
  const require = createRequire(path.join(cwd, 'package.json'));
  let manifestFile: string;
  try {
    manifestFile = require.resolve(`${GENERATOR_PACKAGE}/package.json`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new GeneratorUnavailable(`needs ${GENERATOR_PACKAGE}, which is not installed in ${cwd}: ${install}`);
  }
  const { version } = JSON.parse(readFileSync(manifestFile, 'utf8')) as { version: string };
  if (version !== SHAPER_GEN_VERSION) {
    throw new GeneratorUnavailable(`${GENERATOR_PACKAGE} ${version} is installed, but shaper-gen is ${SHAPER_GEN_VERSION} and the two are released together: ${install}`);
  }
  const entry = (await import(pathToFileURL(require.resolve(GENERATOR_PACKAGE)).href)) as { default: GeneratorCommands };
  return entry.default;
}
