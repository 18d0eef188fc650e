/**
 * @shaper-gen/generator's entry: the `shaper-gen` CLI (the runtime package)
 * parses init's, manifests' and dev's flags and calls these. Each loads its
 * work on first call, so `init` never loads the TypeScript compiler.
 */
import type { GeneratorCommands } from 'shaper-gen/internal/generator';

const commands: GeneratorCommands = {
  init: async (dir, flags) => (await import('./init/run-init.js')).runInitCommand(dir, flags),
  manifests: async (flags) => (await import('./run-manifests.js')).runManifests(flags),
  dev: async (flags) => (await import('./dev/run-dev.js')).runDev(flags),
};

export default commands;
