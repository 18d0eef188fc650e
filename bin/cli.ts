/** The commands; loaded by bin/shaper-gen.ts once the compile cache is on. */
import { Command } from 'commander';
import { createCommand } from '../runtime/cli/create-command.js';
import { devCommand } from '../runtime/cli/dev-command.js';
import { initCommand } from '../runtime/cli/init-command.js';
import { manifestsCommand } from '../runtime/cli/manifests-command.js';
import { SHAPER_GEN_VERSION } from '../runtime/cli/package-version.js';
import { serveCommand } from '../runtime/cli/serve-command.js';

const program = new Command('shaper-gen')
  .description('Kubernetes admission webhooks from decorated TypeScript classes')
  .version(SHAPER_GEN_VERSION, '-V, --version')
  .showHelpAfterError()
  .showSuggestionAfterError()
  // Program options only before a command's name: `create api --version v1` is the API's version, not shaper-gen's.
  .enablePositionalOptions()
  .addCommand(initCommand())
  .addCommand(createCommand())
  .addCommand(manifestsCommand())
  .addCommand(devCommand())
  .addCommand(serveCommand());

await program.parseAsync(process.argv);
