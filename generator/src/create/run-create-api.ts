/**
 * `shaper-gen create api`: checks the names, reads what the project already
 * declares, writes the planned files (never over an existing one: then it
 * writes nothing) and prints the next steps.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { ConfigError, countOf, type CreateApiFlags } from 'shaper-gen/internal/generator';
import { loadGeneratorConfig, type GeneratorConfig } from '../config.js';
import { formatDiagnostic } from '../diagnostics.js';
import { planApi } from './api-plan.js';
import { checkApiRequest, CreateApiError } from './api-request.js';
import { nextSteps } from './next-steps.js';

/** As the CLI runs it: a refusal prints as one line and exits 2, a broken generator config as its diagnostics and exits 1. */
export function runCreateApiCommand(flags: CreateApiFlags, cwd = process.cwd()): Promise<number> {
  return asCreateCommand('create api', () => runCreateApi(flags, cwd), cwd);
}

/** A `create` command as the CLI runs it: a CreateApiError prints as one line and exits 2, a broken generator config as its diagnostics and exits 1. */
export async function asCreateCommand(command: string, run: () => Promise<number>, cwd: string): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CreateApiError) {
      console.error(`shaper-gen ${command}: ${error.message}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      for (const diagnostic of error.problems) console.error(formatDiagnostic(diagnostic, cwd));
      console.error(`shaper-gen ${command}: ${countOf(error.problems.length, 'problem')} in the generator config; nothing was written`);
      return 1;
    }
    throw error;
  }
}

export async function runCreateApi(flags: CreateApiFlags, cwd = process.cwd()): Promise<number> {
  const request = checkApiRequest(flags);
  const config = loadGeneratorConfig(flags.config, cwd);
  const { readApiDeclarations } = await import('../crd/generate.js');
  const plan = planApi(request, readApiDeclarations(config.tsconfig, await sources(config), config.root), config.root, cwd);
  const relative = (file: string) => path.relative(cwd, file) || '.';
  const taken = plan.files.find((file) => existsSync(file.path));
  if (taken) throw new CreateApiError(`${relative(taken.path)} exists and create api never overwrites: move it away, or pass another --kind, --version or --dir`);
  for (const file of plan.files) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content);
  }
  console.log(`shaper-gen create api: ${plan.kind} ${plan.group}/${plan.version} (${plan.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced'}, resource ${plan.plural})`);
  for (const file of plan.files) console.log(`  wrote ${relative(file.path)}`);
  const scanned = new Set(await sources(config));
  const unscanned = plan.files.filter((file) => !file.path.endsWith('.test.ts') && !scanned.has(file.path));
  if (unscanned.length > 0)
    console.log(`  not among the generator's sources, so manifests will not read them: ${unscanned.map((f) => relative(f.path)).join(', ')}; add their directory to sources in shaper.yaml`);
  for (const line of nextSteps(plan, manifestsCommand(config.root), relative(path.join(config.chartDir, 'templates', 'crds', `${plan.group}_${plan.plural}.yaml`)), relative)) console.log(line);
  return 0;
}

export async function sources(config: GeneratorConfig): Promise<string[]> {
  return glob([...config.sources], { cwd: config.root, ignore: [...config.exclude], absolute: true, onlyFiles: true });
}

/** `npm run manifests` in a project `shaper-gen init` made, else the CLI itself. */
export function manifestsCommand(root: string): string {
  const packageFile = path.join(root, 'package.json');
  const scripts = existsSync(packageFile) ? (JSON.parse(readFileSync(packageFile, 'utf8')) as { scripts?: Record<string, string> }).scripts : undefined;
  return scripts?.manifests === undefined ? 'npx shaper-gen manifests' : 'npm run manifests';
}
