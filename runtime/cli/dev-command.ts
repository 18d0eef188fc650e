/** The `shaper-gen dev` command's flags; the watch-generate-build-serve loop is @shaper-gen/generator's. */
import { Command } from 'commander';
import { DEFAULT_COMPILED_HANDLERS } from '../project-layout.js';
import type { DevFlags } from './generator-contract.js';
import { withGenerator } from './load-generator.js';
import { settingArgument } from './serve-command.js';

export function devCommand(): Command {
  return new Command('dev')
    .description('generate, build and serve --dev, and do it again on every source change')
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .option('--handlers <module>', 'the compiled handlers module to serve', DEFAULT_COMPILED_HANDLERS)
    .option('--port <port>', 'webhook HTTPS port of serve --dev (default 9443)', settingArgument(['webhook', 'port']))
    .action(async (flags: DevFlags) => {
      process.exitCode = await withGenerator('dev', (generator) => generator.dev(flags));
    });
}
