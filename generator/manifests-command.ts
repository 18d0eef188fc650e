/**
 * The `shaper-gen manifests` command's flags; the work is in run-manifests.ts,
 * imported only once the generator packages are known to be installed.
 */
import { Command } from 'commander';
import { withGeneratorPackages } from './generator-packages.js';

export interface ManifestsFlags {
  config?: string;
  check?: boolean;
  stdout?: boolean;
}

export function manifestsCommand(): Command {
  return new Command('manifests')
    .description('scan @Webhook decorators and generate the chart\'s webhook configurations and the handlers index')
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .option('--check', 'exit 1 if the committed generated files are stale; write nothing')
    .option('--stdout', 'print the generated files instead of writing them')
    .action(async (flags: ManifestsFlags) => {
      process.exitCode = await withGeneratorPackages(async () => (await import('./run-manifests.js')).runManifests(flags));
    });
}
