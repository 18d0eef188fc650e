/** The `shaper-gen manifests` command's flags; the scan and the rendering are @shaper-gen/generator's. */
import { Command } from 'commander';
import type { ManifestsFlags } from './generator-contract.js';
import { withGenerator } from './load-generator.js';

export function manifestsCommand(): Command {
  return new Command('manifests')
    .description("scan @Webhook decorators and generate the chart's webhook configurations and the handlers index")
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .option('--check', 'exit 1 if the committed generated files are stale; write nothing')
    .option('--stdout', 'print the generated files instead of writing them')
    .action(async (flags: ManifestsFlags) => {
      process.exitCode = await withGenerator('manifests', (generator) => generator.manifests(flags));
    });
}
