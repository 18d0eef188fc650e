/**
 * The `shaper-gen dev` command's flags; the watch-generate-build-serve loop is
 * in run-dev.ts, imported only once the generator packages are installed.
 */
import { Command } from 'commander';
import { settingArgument } from '../../runtime/cli/serve-command.js';
import { withGeneratorPackages } from '../generator-packages.js';
import type { DevFlags } from './run-dev.js';
import { DEFAULT_COMPILED_HANDLERS } from '../../runtime/project-layout.js';

export function devCommand(): Command {
  return new Command('dev')
    .description('generate, build and serve --dev, and do it again on every source change')
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .option('--handlers <module>', 'the compiled handlers module to serve', DEFAULT_COMPILED_HANDLERS)
    .option('--port <port>', 'webhook HTTPS port of serve --dev (default 9443)', settingArgument(['webhook', 'port']))
    .action(async (flags: DevFlags) => {
      process.exitCode = await withGeneratorPackages(async () => (await import('./run-dev.js')).runDev(flags));
    });
}
