#!/usr/bin/env node
import { Command } from 'commander';
import { manifestsCommand } from '../generator/manifests-command.js';

const program = new Command('shaper-gen')
  .description('Kubernetes admission webhooks from decorated TypeScript classes')
  .showHelpAfterError()
  .addCommand(manifestsCommand());

await program.parseAsync(process.argv);
