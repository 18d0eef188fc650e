/** The generator's own settings, from a Kubernetes-style YAML file (`shaper.yaml`). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, DEFAULT_EXCLUDE, DEFAULT_SOURCES, defaultHandlersModule, type DocumentOf, readYamlConfig, type Schema } from 'shaper-gen/internal/generator';
import { diagnosticIn, type Diagnostic } from './diagnostics.js';
import { webhookUrlProblem } from './static/webhook-url.js';

export const CONFIG_API_VERSION = 'shaper-gen.io/v1alpha1';
export const CONFIG_KIND = 'GeneratorConfig';
export const DEFAULT_CONFIG_FILE = 'shaper.yaml';

export interface GeneratorConfig {
  /** Directory every other path is relative to: the config file's directory. */
  readonly root: string;
  readonly configFile: string | undefined;
  readonly tsconfig: string;
  readonly sources: readonly string[];
  readonly exclude: readonly string[];
  readonly chartDir: string;
  /** The generated module that exports every decorated class. */
  readonly handlersModule: string;
  /** CustomResourceDefinition YAML files (globs) whose schemas type the `object` of policy expressions. */
  readonly crds: readonly string[];
  /** CRDs another project owns whose TypeScript types `create types` wrote and `manifests` keeps in step; their schemas type policies too. */
  readonly types: readonly TypesSource[];
  /** `manifests --static`'s webhook URL base and CA bundle file (relative to the root), as shaper.yaml's `static` sets them. */
  readonly staticAdmission?: { readonly url?: string; readonly caBundle?: string };
}

export interface TypesSource {
  /** CRD files, directories of them, or globs, relative to the root, as shaper.yaml lists them. */
  readonly from: readonly string[];
  /** The directory the modules are written into, relative to the root, as shaper.yaml spells it. */
  readonly out: string;
}

const SCHEMA = {
  type: 'object',
  fields: {
    apiVersion: { type: 'enum', values: [CONFIG_API_VERSION] },
    kind: { type: 'enum', values: [CONFIG_KIND] },
    tsconfig: { type: 'string' },
    sources: { type: 'list', items: { type: 'string' } },
    exclude: { type: 'list', items: { type: 'string' } },
    chartDir: { type: 'string' },
    handlersModule: { type: 'string', pattern: /\.(ts|mts)$/, hint: 'must name a .ts or .mts file' },
    crds: { type: 'list', items: { type: 'string' } },
    types: { type: 'list', items: { type: 'object', fields: { from: { type: 'list', items: { type: 'string' } }, out: { type: 'string' } } } },
    static: { type: 'object', fields: { url: { type: 'string', problem: webhookUrlProblem }, caBundle: { type: 'string' } } },
  },
} as const satisfies Schema;

const DEFAULTS = {
  tsconfig: 'tsconfig.json',
  sources: DEFAULT_SOURCES,
  exclude: DEFAULT_EXCLUDE,
  chartDir: 'charts/shaper-webhooks',
};

/**
 * Loads `configFile`, or `shaper.yaml` in `cwd` when present, or the defaults.
 * Throws ConfigError with `file:line:col` problems for a bad file.
 */
export function loadGeneratorConfig(configFile: string | undefined, cwd = process.cwd()): GeneratorConfig {
  const file = configFile ? path.resolve(cwd, configFile) : path.resolve(cwd, DEFAULT_CONFIG_FILE);
  if (!existsSync(file)) {
    if (configFile) throw new ConfigError([diagnosticIn(file, 'config file not found')], 'generator configuration');
    return resolveConfig(cwd, undefined, {});
  }
  const { value, problems } = readYamlConfig(readFileSync(file, 'utf8'), SCHEMA, file);
  const diagnostics: Diagnostic[] = [...problems];
  if (value.apiVersion === undefined || value.kind === undefined) {
    diagnostics.push(diagnosticIn(file, `a generator config needs "apiVersion: ${CONFIG_API_VERSION}" and "kind: ${CONFIG_KIND}"`));
  }
  diagnostics.push(...typesProblems(value.types ?? [], file));
  if (diagnostics.length > 0) throw new ConfigError(diagnostics, 'generator configuration');
  return resolveConfig(path.dirname(file), file, value);
}

function resolveConfig(root: string, configFile: string | undefined, value: DocumentOf<typeof SCHEMA>): GeneratorConfig {
  // Always written: `serve` needs it. Without a setting, beside the sources.
  const handlersModule = value.handlersModule ?? defaultHandlersModule(root);
  const handlersExclude = [handlersModule];
  return {
    root,
    configFile,
    tsconfig: path.resolve(root, value.tsconfig ?? DEFAULTS.tsconfig),
    sources: value.sources ?? DEFAULTS.sources,
    exclude: [...(value.exclude ?? DEFAULTS.exclude), ...handlersExclude],
    chartDir: path.resolve(root, value.chartDir ?? DEFAULTS.chartDir),
    handlersModule: path.resolve(root, handlersModule),
    crds: value.crds ?? [],
    types: (value.types ?? []).map((entry) => ({ from: entry.from ?? [], out: entry.out ?? '' })),
    staticAdmission: { ...value.static },
  };
}

/** Each `types` entry names its CRDs and a directory of its own. */
function typesProblems(types: DocumentOf<typeof SCHEMA>['types'] & object, file: string): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const outs = new Set<string>();
  types.forEach((entry, i) => {
    if (!entry.from?.length || !entry.out)
      problems.push(
        diagnosticIn(file, `types[${i}] needs \`from\` (CRD files, directories or globs) and \`out\` (a directory): \`shaper-gen create types --from <crds> --out <dir>\` writes both`),
      );
    else if (outs.has(directoryKey(entry.out)))
      problems.push(diagnosticIn(file, `types[${i}]: out ${JSON.stringify(entry.out)} is another entry's too: list all of its CRDs in that entry's \`from\``));
    else outs.add(directoryKey(entry.out));
  });
  return problems;
}

/** A directory as shaper.yaml may spell it (`src/api`, `./src/api/`), for comparing `types` entries' `out`. */
export function directoryKey(directory: string): string {
  return path.normalize(directory).replace(/(.)[\\/]+$/, '$1');
}
