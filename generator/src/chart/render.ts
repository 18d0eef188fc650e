/**
 * Renders the generated files through the handlebars templates: the sources in
 * the repository's templates/ (one folder per concept, its partials in
 * `<concept>/partials/`), compiled by the build into dist/. Code here only
 * prepares sorted, plain data; all output shape is in templates.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type HandlebarsNamespace from 'handlebars';
import { compareText } from '../compare-text.js';
import { packageRoot } from '../package-root.js';

type Handlebars = typeof HandlebarsNamespace;
type TemplateSpecification = Parameters<Handlebars['template']>[0];
type Template = (context: object) => string;

export interface Templates {
  readonly webhookConfigurations: Template;
  readonly validatingPolicies: Template;
  readonly mutatingPolicies: Template;
  readonly policyEnforcement: Template;
  readonly webhookPaths: Template;
  readonly rbacRules: Template;
  readonly handlersIndex: Template;
  readonly crd: Template;
  readonly staticWebhookConfiguration: Template;
  readonly staticValidatingPolicy: Template;
  readonly staticMutatingPolicy: Template;
}

const TEMPLATE_FILES: Readonly<Record<keyof Templates, string>> = {
  webhookConfigurations: 'webhook/webhook-configurations.yaml.hbs',
  validatingPolicies: 'policy/validating-admission-policies.yaml.hbs',
  mutatingPolicies: 'policy/mutating-admission-policies.yaml.hbs',
  policyEnforcement: 'policy/policy-enforcement.tpl.hbs',
  webhookPaths: 'chart/webhook-paths.tpl.hbs',
  rbacRules: 'chart/rbac-rules.tpl.hbs',
  handlersIndex: 'handlers/handlers-index.ts.hbs',
  crd: 'crd/crd.yaml.hbs',
  staticWebhookConfiguration: 'static/webhook-configuration.yaml.hbs',
  staticValidatingPolicy: 'static/validating-policy.yaml.hbs',
  staticMutatingPolicy: 'static/mutating-policy.yaml.hbs',
};
const COMPILE_OPTIONS = { noEscape: true, strict: true } as const;

/**
 * The templates compiled by `npm run build` (generator/scripts/precompile-templates.mjs),
 * with the sources they were compiled from. In the repository they are used only
 * while the sources are unchanged; an installed package has no sources and uses
 * them as they are, with handlebars' small runtime instead of its compiler.
 */
const PRECOMPILED = new URL('./templates.precompiled.js', import.meta.url).href;

interface TemplateSources {
  /** By partial name (file name without .hbs), sorted. */
  readonly partials: Readonly<Record<string, string>>;
  readonly templates: Readonly<Record<keyof Templates, string>>;
}

interface PrecompiledTemplates {
  readonly sources: TemplateSources;
  readonly partials: Readonly<Record<string, TemplateSpecification>>;
  readonly templates: Readonly<Record<keyof Templates, TemplateSpecification>>;
}

const cache = new Map<string, Templates>();

/**
 * How `{{#helm}}` actions render: as Helm template actions (the chart), or `plain`, evaluated as the chart
 * installs by default (every policy enabled, the API version of Kubernetes 1.36 and later, each binding's
 * own actions) for tests that take the objects themselves (`admit`).
 */
export type HelmMode = 'chart' | 'plain';

/** `dir`: the template sources; by default the repository's, and none in an installed package. */
export async function loadTemplates(dir = repositoryTemplatesDir(), mode: HelmMode = 'chart'): Promise<Templates> {
  const key = `${mode}:${dir ?? ''}`;
  let templates = cache.get(key);
  if (templates) return templates;
  if (dir === undefined) {
    templates = await fromPrecompiled(mode);
    if (!templates) throw new Error(`@shaper-gen/generator is incomplete: ${PRECOMPILED} is missing or was compiled for another handlebars; reinstall it`);
  } else {
    const sources = readTemplateSources(dir);
    templates = (await fromPrecompiled(mode, sources)) ?? (await compileTemplates(sources, mode));
  }
  cache.set(key, templates);
  return templates;
}

/** templates/ beside the generator's package, which only a checkout of the repository has. */
export function repositoryTemplatesDir(): string | undefined {
  const dir = path.join(packageRoot(), '..', 'templates');
  return existsSync(path.join(dir, TEMPLATE_FILES.webhookConfigurations)) ? dir : undefined;
}

function readTemplateSources(dir: string): TemplateSources {
  const partials: Record<string, string> = {};
  const concepts = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const concept of concepts) {
    const partialsDir = path.join(dir, concept, 'partials');
    if (!existsSync(partialsDir)) continue;
    for (const file of readdirSync(partialsDir)
      .filter((f) => f.endsWith('.hbs'))
      .sort()) {
      const name = file.replace(/\.hbs$/, '');
      if (Object.hasOwn(partials, name)) throw new Error(`templates: two partials are named ${name}; a partial's file name is its name in every template`);
      partials[name] = readFileSync(path.join(partialsDir, file), 'utf8');
    }
  }
  const templates = mapTemplates((name) => readFileSync(path.join(dir, TEMPLATE_FILES[name]), 'utf8'));
  return { partials: Object.fromEntries(Object.entries(partials).sort(([a], [b]) => compareText(a, b))), templates };
}

function mapTemplates<T>(map: (name: keyof Templates) => T): Record<keyof Templates, T> {
  const names = Object.keys(TEMPLATE_FILES) as (keyof Templates)[];
  return Object.fromEntries(names.map((name) => [name, map(name)])) as Record<keyof Templates, T>;
}

async function compileTemplates(sources: TemplateSources, mode: HelmMode): Promise<Templates> {
  const { default: handlebars } = await import('handlebars');
  const hbs = handlebars.create();
  registerHelpers(hbs, mode);
  for (const [name, source] of Object.entries(sources.partials)) hbs.registerPartial(name, source);
  return mapTemplates((name) => {
    const template = hbs.compile(sources.templates[name], COMPILE_OPTIONS);
    return (context) => template(context);
  });
}

/** With `sources`: only if compiled from exactly those. */
async function fromPrecompiled(mode: HelmMode, sources?: TemplateSources): Promise<Templates | undefined> {
  let precompiled: PrecompiledTemplates;
  try {
    precompiled = (await import(PRECOMPILED)) as PrecompiledTemplates;
  } catch (error) {
    // Not built: running from the sources.
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  if (sources && !sameSources(precompiled.sources, sources)) return undefined;
  // handlebars/runtime has no types of its own: it is the same API without the compiler.
  const { default: runtime } = (await import('handlebars/runtime.js')) as { default: Handlebars };
  const hbs = runtime.create();
  registerHelpers(hbs, mode);
  try {
    for (const [name, spec] of Object.entries(precompiled.partials)) hbs.registerPartial(name, hbs.template(spec));
    return mapTemplates((name) => {
      const template = hbs.template(precompiled.templates[name]);
      return (context) => template(context);
    });
  } catch {
    // Compiled for another handlebars revision than the one installed: compile here instead.
    return undefined;
  }
}

function sameSources(a: TemplateSources, b: TemplateSources): boolean {
  const same = (x: Readonly<Record<string, string>>, y: Readonly<Record<string, string>>) =>
    Object.keys(x).length === Object.keys(y).length && Object.keys(x).every((key) => Object.hasOwn(y, key) && x[key] === y[key]);
  return same(a.partials, b.partials) && same(a.templates, b.templates);
}

/** The template compiled to JavaScript source: handlebars' types call it a TemplateSpecification, but precompile returns the source text. */
function precompiledSource(handlebars: Handlebars, source: string): string {
  return handlebars.precompile(source, COMPILE_OPTIONS) as unknown as string;
}

/** The source of templates.precompiled.js for the templates in `dir` (run by `npm run build`). */
export async function precompiledTemplatesModule(dir: string): Promise<string> {
  const { default: handlebars } = await import('handlebars');
  const sources = readTemplateSources(dir);
  const specs = (record: Readonly<Record<string, string>>) =>
    `{\n${Object.entries(record)
      .map(([name, source]) => `  ${JSON.stringify(name)}: ${precompiledSource(handlebars, source)},`)
      .join('\n')}\n}`;
  return [
    `// Generated by \`npm run build\` (generator/scripts/precompile-templates.mjs) from templates/ with handlebars ${handlebars.VERSION}; do not edit.`,
    `export const sources = ${JSON.stringify(sources)};`,
    `export const partials = ${specs(sources.partials)};`,
    `export const templates = ${specs(sources.templates)};`,
    '',
  ].join('\n');
}

/**
 * A YAML double-quoted scalar (JSON strings are valid ones) that Helm's template
 * engine leaves alone: a literal `{{` becomes the action `{{ "{{" }}`.
 */
export function yamlQuote(value: unknown): string {
  return JSON.stringify(String(value)).replace(/\{\{/g, '{{ "{{" }}');
}

/** Plain YAML (objects for a test, or static admission files whose model says `helm: false`) is read by no Helm engine. */
function quoteFor(mode: HelmMode, options: HandlebarsNamespace.HelperOptions): (value: unknown) => string {
  const plain = mode === 'plain' || (options.data as { root?: { helm?: boolean } } | undefined)?.root?.helm === false;
  return plain ? (value) => JSON.stringify(String(value)) : yamlQuote;
}

function registerHelpers(hbs: Handlebars, mode: HelmMode): void {
  hbs.registerHelper('q', (value: unknown, options: HandlebarsNamespace.HelperOptions) => quoteFor(mode, options)(value));
  hbs.registerHelper('js', (value: unknown) => JSON.stringify(value));
  // Go string literal; JSON escapes are a subset of Go's for the characters paths and names allow.
  hbs.registerHelper('goString', (value: unknown) => JSON.stringify(String(value)));
  hbs.registerHelper('flow', (values: readonly unknown[], options: HandlebarsNamespace.HelperOptions) => `[${values.map(quoteFor(mode, options)).join(', ')}]`);
  /**
   * `{{#helm}}- if .Values.x{{/helm}}` → `{{- if .Values.x }}`; also inline:
   * `{{helm '.Release.Namespace'}}`. A leading/trailing `-` is Helm's trim marker.
   */
  hbs.registerHelper('helm', function (this: unknown, ...args: unknown[]) {
    // No `fn` when the helper is used inline, whatever handlebars' types say.
    const options = args.pop() as Omit<HandlebarsNamespace.HelperOptions, 'fn'> & { fn?: HandlebarsNamespace.HelperOptions['fn'] };
    const action = (options.fn ? options.fn(this) : String(args[0])).trim();
    if (mode === 'plain') return plainHelmAction(action);
    return `{{${action.startsWith('-') ? '' : ' '}${action}${action.endsWith('-') ? '' : ' '}}}`;
  });
}

/**
 * A policy template's Helm action as the chart renders it by default: control flow and variables vanish (every
 * policy enabled), `$apiVersion` is admissionregistration.k8s.io/v1, labels are none, a defaulted list is its
 * default. Any other action is an error: plain rendering knows only these.
 */
function plainHelmAction(action: string): string {
  const text = action.replace(/^-\s*/, '').replace(/\s*-$/, '');
  if (/^\$\w+\s*:?=/.test(text) || /^(if|else|end)\b/.test(text)) return '';
  if (text === '$apiVersion') return 'admissionregistration.k8s.io/v1';
  if (/^include "[^"]+\.labels" \$ \| nindent \d+$/.test(text)) return '{}';
  const list = /\| default \(list((?: "(?:[^"\\]|\\.)*")*)\) \| toJson$/.exec(text);
  if (list) return JSON.stringify([...list[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]!}"`) as string));
  throw new Error(`plain rendering of the chart's templates does not know the Helm action {{ ${action} }}`);
}
