#!/usr/bin/env node
/**
 * The `shaper-gen` executable. It only sets the process up (Node's module
 * compile cache above all: the generator's dependencies, the TypeScript
 * compiler first, are then not compiled afresh on every run) and then loads
 * the CLI. Static imports would be loaded before this module's body runs, so
 * everything else is imported dynamically, after the set-up.
 */
import { setUpGeneratorProcess } from './process-setup.js';

setUpGeneratorProcess(process.argv[2]);
await import('./cli.js');
