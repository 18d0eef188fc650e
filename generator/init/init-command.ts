/** The `shaper-gen init` command's flags; scaffolding is in run-init.ts, whose refusals print as one line and exit 2. */
import { Command } from 'commander';
import type { InitFlags } from './run-init.js';

export function initCommand(): Command {
  return new Command('init')
    .description('scaffold a webhook project: chart, Dockerfile, shaper.yaml, tsconfig, test setup and two example handlers')
    .argument('[dir]', 'project directory (created if missing)', '.')
    .option('--name <name>', 'chart name (default: the package or directory name)')
    .option('--image <repository>', 'image repository in the chart\'s values (default: the chart name)')
    .option('--force', 'overwrite files that exist')
    .option('--no-install', 'do not run npm install and shaper-gen manifests afterwards')
    .action(async (dir: string, flags: InitFlags) => {
      const { runInit, InitError } = await import('./run-init.js');
      try {
        process.exitCode = runInit(dir, flags);
      } catch (error) {
        if (!(error instanceof InitError)) throw error;
        console.error(`shaper-gen init: ${error.message}`);
        process.exitCode = 2;
      }
    });
}
