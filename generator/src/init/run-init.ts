/**
 * `shaper-gen init [dir]`: a project that builds, tests, generates and ships
 * webhooks and policies for its own resources — the chart, Dockerfile, configs,
 * two example handlers and an example policy, with tests. Never overwrites a file unless --force; lists
 * what it kept. Then installs and generates, unless --no-install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { countOf, DEFAULT_COMPILED_HANDLERS, type InitFlags } from 'shaper-gen/internal/generator';
import { generatorManifest, runtimeManifest } from './own-packages.js';
import { mergePackageJson } from './package-json.js';
import { projectScaffold } from './scaffold.js';
import { vendorTarballs } from './vendor-tarballs.js';

const CHART_NAME = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const MAX_CHART_NAME = 53; // leaves room for "-serving-cert" etc. inside the 63 characters of a label

export class InitError extends Error {}

/** `shaper-gen init` as the CLI runs it: a refusal prints as one line and exits 2. */
export function runInitCommand(dir: string | undefined, flags: InitFlags): number {
  try {
    return runInit(dir, flags);
  } catch (error) {
    if (!(error instanceof InitError)) throw error;
    console.error(`shaper-gen init: ${error.message}`);
    return 2;
  }
}

/** Runs `shaper-gen init`; returns the exit code. */
// eslint-disable-next-line complexity, max-statements -- init's steps in order, each with its own refusal; to split into steps (follow-up)
export function runInit(dir: string | undefined, flags: InitFlags, cwd = process.cwd()): number {
  const target = path.resolve(cwd, dir ?? '.');
  const packageFile = path.join(target, 'package.json');
  const existing = existsSync(packageFile) ? (JSON.parse(readFileSync(packageFile, 'utf8')) as Record<string, unknown>) : undefined;
  const name = chartName(flags.name, typeof existing?.name === 'string' ? existing.name : path.basename(target));
  const files = projectScaffold({
    name,
    description: `Admission webhooks of ${name}, served by shaper-gen.`,
    image: flags.image ?? name,
    handlers: DEFAULT_COMPILED_HANDLERS,
  });

  const written: string[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const destination = path.join(target, file.path);
    if (existsSync(destination) && !flags.force) {
      if (readFileSync(destination, 'utf8') !== file.content) skipped.push(file.path);
      continue;
    }
    mkdirSync(path.dirname(destination), { recursive: true });
    writeFileSync(destination, file.content);
    written.push(file.path);
  }
  const merged = mergePackageJson(existing, name, flags.force ?? false);
  const vendoring = vendorTarballs(merged.json, target, [runtimeManifest().name, generatorManifest().name]);
  if (merged.added.length > 0 || vendoring.vendored.length > 0 || !existing) writeFileSync(packageFile, `${JSON.stringify(merged.json, null, 2)}\n`);

  const where = path.relative(cwd, target) || '.';
  const cd = where === '.' ? '' : `cd ${where} && `;
  console.log(`shaper-gen init: ${countOf(written.length, 'file')} written in ${where} for chart "${name}"`);
  for (const file of written) console.log(`  wrote ${file}`);
  if (merged.added.length > 0) console.log(`  package.json: added ${merged.added.join(', ')}`);
  for (const { entry, from, to } of vendoring.vendored) console.log(`  package.json: ${entry} is now ${to}, a copy of ${from} inside the image's build context`);
  for (const line of vendoring.advice) console.log(`  ${line}`);
  if (skipped.length > 0 || merged.kept.length > 0) {
    console.log('  kept as they are (--force overwrites):');
    for (const file of skipped) console.log(`    ${file}`);
    for (const entry of merged.kept) console.log(`    package.json ${entry}`);
  }

  const steps = [
    ['npm', 'install'],
    ['npx', 'shaper-gen', 'manifests'],
  ];
  if (flags.install === false) {
    console.log(`next: ${cd}${steps.map((s) => s.join(' ')).join(' && ')} && npm test`);
    return 0;
  }
  for (const step of steps) {
    console.log(`shaper-gen init: ${step.join(' ')}`);
    const result = spawnSync(step[0]!, step.slice(1), { cwd: target, stdio: 'inherit' });
    if (result.status !== 0) {
      console.error(`shaper-gen init: \`${step.join(' ')}\` failed in ${where}; fix what it printed and run it again`);
      return 1;
    }
  }
  console.log(`next: ${cd}npm test && npm run build, then build the image (Dockerfile: shaper-gen without the generator) and helm install charts/${name}`);
  return 0;
}

/** The chart name: --name, or the package or directory name made a DNS label. */
function chartName(flag: string | undefined, fallback: string): string {
  if (flag !== undefined) {
    if (!CHART_NAME.test(flag) || flag.length > MAX_CHART_NAME) {
      throw new InitError(`--name "${flag}": a chart name must be a lower-case DNS label (letters, digits, "-", starting with a letter) of at most ${MAX_CHART_NAME} characters`);
    }
    return flag;
  }
  const derived = fallback
    .replace(/^@[^/]+\//, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, MAX_CHART_NAME)
    .replace(/-+$/, '');
  if (!derived) throw new InitError(`cannot make a chart name of "${fallback}": pass --name <dns-label>`);
  return derived;
}
