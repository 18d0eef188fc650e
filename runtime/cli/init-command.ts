/** The `shaper-gen init` command's flags; the scaffolding is @shaper-gen/generator's. */
import { Command } from 'commander';
import type { InitFlags } from './generator-contract.js';
import { withGenerator } from './load-generator.js';

export function initCommand(): Command {
  return new Command('init')
    .description('scaffold a webhook project: chart, Dockerfile, shaper.yaml, tsconfig, test setup, two example handlers and an example policy')
    .argument('[dir]', 'project directory (created if missing)', '.')
    .option('--name <name>', 'chart name (default: the package or directory name)')
    .option('--image <repository>', "image repository in the chart's values (default: the chart name)")
    .option('--force', 'overwrite files that exist')
    .option('--no-install', 'do not run npm install and shaper-gen manifests afterwards')
    .action(async (dir: string, flags: InitFlags) => {
      process.exitCode = await withGenerator('init', (generator) => generator.init(dir, flags));
    });
}
