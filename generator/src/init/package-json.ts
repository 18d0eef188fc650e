/**
 * The package.json `shaper-gen init` writes or completes: scripts and
 * dependencies are added where missing, never replaced. Versions come from
 * the package.json files of shaper-gen and of this package, so a project
 * starts on the versions this release is tested with.
 */
import { generatorManifest, runtimeManifest } from './own-packages.js';

type Json = Record<string, unknown>;

export const SCRIPTS = {
  build: 'tsc -p tsconfig.build.json',
  typecheck: 'tsc -p tsconfig.json',
  // Vitest strips types without checking them: a handler that no longer fits its kind's type would pass.
  manifests: 'shaper-gen manifests',
  'manifests:check': 'shaper-gen manifests --check',
  dev: 'shaper-gen dev',
  test: 'tsc -p tsconfig.json && vitest run',
} as const;

const NPM_INIT_TEST_SCRIPT = 'echo "Error: no test specified" && exit 1';

/**
 * Versions from shaper-gen's devDependencies. The generator (this package) is a dev dependency too: images leave it
 * out. So is @kubernetes/client-node: the scaffold's handlers use only its types; a handler that calls ctx.kube needs
 * it in dependencies, which `serve` says in one line when it is missing.
 */
const DEV_DEPENDENCIES = ['@kubernetes/client-node', 'typescript', 'vitest', 'vite', '@types/node'];

export interface MergedPackageJson {
  readonly json: Json;
  /** `scripts.build`, `dependencies.shaper-gen`, … that were added. */
  readonly added: string[];
  /** Entries left as they were because the project already has them with another value. */
  readonly kept: string[];
}

export function mergePackageJson(existing: Json | undefined, name: string, force: boolean): MergedPackageJson {
  const runtime = runtimeManifest();
  const generator = generatorManifest();
  const json: Json = existing ? structuredClone(existing) : { name, version: '0.1.0', private: true };
  const added: string[] = [];
  const kept: string[] = [];
  const set = (section: string, key: string, value: string) => {
    const target = ((json[section] as Record<string, string> | undefined) ??= {});
    if (target[key] === value) return;
    if (target[key] !== undefined && !force) {
      kept.push(`${section}.${key}`);
      return;
    }
    target[key] = value;
    added.push(`${section}.${key}`);
  };
  // What `npm init -y` writes is a placeholder, not a choice: a fresh project gets ESM and real scripts.
  const fresh = (json.scripts as Record<string, string> | undefined)?.test === NPM_INIT_TEST_SCRIPT;
  if (fresh) delete (json.scripts as Record<string, string>).test;
  if (json.type === undefined || (fresh && json.type !== 'module')) {
    json.type = 'module';
    added.push('type');
  } else if (json.type !== 'module') kept.push('type (the scaffold is ESM: set "type": "module")');
  for (const [script, command] of Object.entries(SCRIPTS)) set('scripts', script, command);
  const hasDependency = (dependency: string) => ['dependencies', 'devDependencies'].some((section) => (json[section] as Record<string, string> | undefined)?.[dependency] !== undefined);
  const addDependency = (section: string, dependency: string, range: string | undefined) => {
    if (range === undefined) throw new Error(`shaper-gen's package.json has no version for ${dependency}`);
    if (!hasDependency(dependency) || force) set(section, dependency, range);
  };
  addDependency('dependencies', runtime.name, `^${runtime.version}`);
  addDependency('devDependencies', generator.name, `^${generator.version}`);
  for (const dependency of DEV_DEPENDENCIES) addDependency('devDependencies', dependency, runtime.devDependencies[dependency]);
  if ((json.dependencies as Record<string, string> | undefined)?.[generator.name] !== undefined) {
    kept.push(`dependencies.${generator.name} (move it to devDependencies: the image would hold the generator)`);
  }
  return { json, added, kept };
}
