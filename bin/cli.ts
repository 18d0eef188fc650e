/** The commands; loaded by bin/shaper-gen.ts once the compile cache is on. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { devCommand } from '../generator/dev/dev-command.js';
import { initCommand } from '../generator/init/init-command.js';
import { manifestsCommand } from '../generator/manifests-command.js';
import { serveCommand } from '../runtime/cli/serve-command.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('shaper-gen')
  .description('Kubernetes admission webhooks from decorated TypeScript classes')
  .version(version, '-V, --version')
  .showHelpAfterError()
  .showSuggestionAfterError()
  .addCommand(initCommand())
  .addCommand(manifestsCommand())
  .addCommand(devCommand())
  .addCommand(serveCommand());

await program.parseAsync(process.argv);
