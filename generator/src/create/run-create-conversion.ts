/**
 * `shaper-gen create conversion`: reads the kind's versions from the
 * project's API packages, writes the converter and its test (never over an
 * existing file: then nothing) and prints the next steps.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CreateConversionFlags } from 'shaper-gen/internal/generator';
import { loadGeneratorConfig } from '../config.js';
import { planConversion } from './conversion-plan.js';
import { CreateApiError } from './api-request.js';
import { asCreateCommand, manifestsCommand, sources } from './run-create-api.js';

export function runCreateConversionCommand(flags: CreateConversionFlags, cwd = process.cwd()): Promise<number> {
  return asCreateCommand('create conversion', () => runCreateConversion(flags, cwd), cwd);
}

export async function runCreateConversion(flags: CreateConversionFlags, cwd = process.cwd()): Promise<number> {
  const config = loadGeneratorConfig(flags.config, cwd);
  const { readApiDeclarations } = await import('../crd/generate.js');
  const { kinds } = readApiDeclarations(config.tsconfig, await sources(config), config.root);
  const plan = planConversion(flags, kinds, config.root);
  const relative = (file: string) => path.relative(cwd, file) || '.';
  const taken = plan.files.find((file) => existsSync(file.path));
  if (taken) throw new CreateApiError(`${relative(taken.path)} exists and create conversion never overwrites: move it away first`);
  for (const file of plan.files) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content);
  }
  console.log(`shaper-gen create conversion: ${plan.className}, ${flags.kind} ${plan.spokes.join(', ')} ⇄ ${flags.hub} (the hub)`);
  for (const file of plan.files) console.log(`  wrote ${relative(file.path)}`);
  console.log(
    `next: change each toHub/fromHub where the versions differ (the compiler shows where a copy no longer fits), then ${manifestsCommand(config.root)} points the CRD at the conversion webhook and lists ${plan.className} for serve; npm test round-trips objects generated from each version's schema (guide: conversion webhooks)`,
  );
  return 0;
}
