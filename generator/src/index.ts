/**
 * @shaper-gen/generator's entry: the `shaper-gen` CLI (the runtime package)
 * parses init's, manifests', dev's and create's flags and calls these. Each loads its
 * work on first call, so `init` never loads the TypeScript compiler.
 */
import type { GeneratorCommands } from 'shaper-gen/internal/generator';

const commands: GeneratorCommands = {
  init: async (dir, flags) => (await import('./init/run-init.js')).runInitCommand(dir, flags),
  manifests: async (flags) => (await import('./manifests/run-manifests.js')).runManifests(flags),
  dev: async (flags) => (await import('./dev/run-dev.js')).runDev(flags),
  createApi: async (flags) => (await import('./create/run-create-api.js')).runCreateApiCommand(flags),
  createConversion: async (flags) => (await import('./create/run-create-conversion.js')).runCreateConversionCommand(flags),
  createTypes: async (flags) => (await import('./create/run-create-types.js')).runCreateTypesCommand(flags),
};

export default commands;
