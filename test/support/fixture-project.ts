/** Throwaway TypeScript projects on disk that depend on this shaper-gen checkout. */
import { GENERATED_CHART_TEMPLATES } from '../../generator/src/chart/generated-templates.js';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emitDeclarationsPackage } from './declarations-package.js';
import { REPO_ROOT } from '../../support/repo-root.js';

export { REPO_ROOT };

export interface FixtureOptions {
  /**
   * Resolve `shaper-gen` to its TypeScript sources (default), or as an installed package would: to the built
   * `dist/*.d.ts` (needs `npm run build`), or to the same declarations emitted from the sources (needs no build).
   */
  readonly resolveTo?: 'sources' | 'dist' | 'declarations';
  readonly shaperYaml?: string | null;
}

export interface FixtureProject {
  readonly dir: string;
  file(relative: string): string;
  read(relative: string): string;
  write(relative: string, content: string): void;
  remove(): void;
}

export const DEFAULT_SHAPER_YAML = `apiVersion: shaper-gen.io/v1alpha1
kind: GeneratorConfig
sources: ["src/**/*.ts"]
handlersModule: src/webhooks.generated.ts
`;

/** tsconfig "paths" to this checkout's sources, as the repository's own tsconfig.json has them. */
const SOURCE_PATHS = Object.fromEntries(
  Object.entries(JSON.parse(readFileSync(path.join(REPO_ROOT, 'tsconfig.json'), 'utf8')).compilerOptions.paths as Record<string, string[]>).map(([name, [target]]) => [
    name,
    [path.join(REPO_ROOT, target!)],
  ]),
);

export function createFixtureProject(files: Record<string, string>, options: FixtureOptions = {}): FixtureProject {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-fixture-'));
  const project: FixtureProject = {
    dir,
    file: (relative) => path.join(dir, relative),
    read: (relative) => readFileSync(path.join(dir, relative), 'utf8'),
    write: (relative, content) => {
      mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
      writeFileSync(path.join(dir, relative), content);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  const resolveTo = options.resolveTo ?? 'sources';
  const paths = resolveTo === 'sources' ? SOURCE_PATHS : undefined;
  project.write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', strict: true, skipLibCheck: true, paths },
      include: ['src'],
    }),
  );
  if (options.shaperYaml !== null) project.write('shaper.yaml', options.shaperYaml ?? DEFAULT_SHAPER_YAML);
  // Both packages, as a user's project installs them: shaper-gen's CLI finds the generator in the project.
  mkdirSync(path.join(dir, 'node_modules', '@shaper-gen'), { recursive: true });
  if (resolveTo === 'declarations') emitDeclarationsPackage(path.join(dir, 'node_modules', 'shaper-gen'));
  else symlinkSync(REPO_ROOT, path.join(dir, 'node_modules', 'shaper-gen'), 'dir');
  symlinkSync(path.join(REPO_ROOT, 'generator'), path.join(dir, 'node_modules', '@shaper-gen', 'generator'), 'dir');
  symlinkSync(path.join(REPO_ROOT, 'node_modules/@kubernetes'), path.join(dir, 'node_modules/@kubernetes'), 'dir');
  const generated = new Set(GENERATED_CHART_TEMPLATES);
  const chart = path.join(REPO_ROOT, 'charts/shaper-webhooks');
  // The sample's generated CRDs (templates/crds/) are not the fixture's either.
  const generatedCrds = path.join(chart, 'templates', 'crds');
  cpSync(chart, path.join(dir, 'charts/shaper-webhooks'), {
    recursive: true,
    filter: (source) => !generated.has(path.basename(source)) && source !== generatedCrds && !source.startsWith(generatedCrds + path.sep),
  });
  for (const [name, content] of Object.entries(files)) project.write(name, content);
  return project;
}
