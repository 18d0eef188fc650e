#!/usr/bin/env node
/**
 * The `shaper-gen` executable. It only turns on Node's module compile cache and
 * then loads the CLI: with the cache, the generator's dependencies (the
 * TypeScript compiler above all, 9 MB of JavaScript) are not compiled afresh on
 * every run. Static imports would be loaded before this module's body runs, so
 * everything else is imported dynamically, after the cache is on.
 */
import { enableGeneratorCompileCache } from './compile-cache.js';

enableGeneratorCompileCache(process.argv[2]);
await import('./cli.js');
