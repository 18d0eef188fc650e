#!/usr/bin/env node
import { Command } from 'commander';
import { manifestsCommand } from '../generator/manifests-command.js';
import { serveCommand } from '../runtime/cli/serve-command.js';

const program = new Command('shaper-gen')
  .description('Kubernetes admission webhooks from decorated TypeScript classes')
  .showHelpAfterError()
  .addCommand(manifestsCommand())
  .addCommand(serveCommand());

await program.parseAsync(process.argv);
