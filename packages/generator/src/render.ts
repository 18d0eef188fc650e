/**
 * Renders the generated files through the handlebars templates in templates/.
 * Code here only prepares sorted, plain data; all output shape is in templates.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type HandlebarsNamespace from 'handlebars';
import { packageRoot } from './package-root.js';

type Handlebars = typeof HandlebarsNamespace;
type TemplateSpecification = Parameters<Handlebars['template']>[0];
type Template = (context: object) => string;

export interface Templates {
  readonly webhookConfigurations: Template;
  readonly validatingPolicies: Template;
  readonly mutatingPolicies: Template;
  readonly webhookPaths: Template;
  readonly rbacRules: Template;
  readonly handlersIndex: Template;
  readonly crd: Template;
}

const TEMPLATE_FILES: Readonly<Record<keyof Templates, string>> = {
  webhookConfigurations: 'webhook-configurations.yaml.hbs',
  validatingPolicies: 'validating-admission-policies.yaml.hbs',
  mutatingPolicies: 'mutating-admission-policies.yaml.hbs',
  webhookPaths: 'webhook-paths.tpl.hbs',
  rbacRules: 'rbac-rules.tpl.hbs',
  handlersIndex: 'handlers-index.ts.hbs',
  crd: 'crd.yaml.hbs',
};
const COMPILE_OPTIONS = { noEscape: true, strict: true } as const;

/**
 * The package's templates compiled by `npm run build` (scripts/precompile-templates.mjs),
 * with the sources they were compiled from: used only while the sources are
 * unchanged, with handlebars' small runtime instead of its compiler.
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

export async function loadTemplates(dir = defaultTemplatesDir()): Promise<Templates> {
  let templates = cache.get(dir);
  if (templates) return templates;
  const sources = readTemplateSources(dir);
  templates = (await fromPrecompiled(sources)) ?? (await compileTemplates(sources));
  cache.set(dir, templates);
  return templates;
}

function defaultTemplatesDir(): string {
  return path.join(packageRoot(), 'templates');
}

function readTemplateSources(dir: string): TemplateSources {
  const partialsDir = path.join(dir, 'partials');
  const partials: Record<string, string> = {};
  for (const file of readdirSync(partialsDir)
    .filter((f) => f.endsWith('.hbs'))
    .sort()) {
    partials[file.replace(/\.hbs$/, '')] = readFileSync(path.join(partialsDir, file), 'utf8');
  }
  const templates = mapTemplates((name) => readFileSync(path.join(dir, TEMPLATE_FILES[name]), 'utf8'));
  return { partials, templates };
}

function mapTemplates<T>(map: (name: keyof Templates) => T): Record<keyof Templates, T> {
  const names = Object.keys(TEMPLATE_FILES) as (keyof Templates)[];
  return Object.fromEntries(names.map((name) => [name, map(name)])) as Record<keyof Templates, T>;
}

async function compileTemplates(sources: TemplateSources): Promise<Templates> {
  const { default: handlebars } = await import('handlebars');
  const hbs = handlebars.create();
  registerHelpers(hbs);
  for (const [name, source] of Object.entries(sources.partials)) hbs.registerPartial(name, source);
  return mapTemplates((name) => {
    const template = hbs.compile(sources.templates[name], COMPILE_OPTIONS);
    return (context) => template(context);
  });
}

async function fromPrecompiled(sources: TemplateSources): Promise<Templates | undefined> {
  let precompiled: PrecompiledTemplates;
  try {
    precompiled = (await import(PRECOMPILED)) as PrecompiledTemplates;
  } catch (error) {
    // Not built: running from the sources.
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  if (!sameSources(precompiled.sources, sources)) return undefined;
  // handlebars/runtime has no types of its own: it is the same API without the compiler.
  const { default: runtime } = (await import('handlebars/runtime.js')) as { default: Handlebars };
  const hbs = runtime.create();
  registerHelpers(hbs);
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

/** The source of templates.precompiled.js for the templates in `dir` (run by `npm run build`). */
/** The template compiled to JavaScript source: handlebars' types call it a TemplateSpecification, but precompile returns the source text. */
function precompiledSource(handlebars: Handlebars, source: string): string {
  return handlebars.precompile(source, COMPILE_OPTIONS) as unknown as string;
}

export async function precompiledTemplatesModule(dir = defaultTemplatesDir()): Promise<string> {
  const { default: handlebars } = await import('handlebars');
  const sources = readTemplateSources(dir);
  const specs = (record: Readonly<Record<string, string>>) =>
    `{\n${Object.entries(record)
      .map(([name, source]) => `  ${JSON.stringify(name)}: ${precompiledSource(handlebars, source)},`)
      .join('\n')}\n}`;
  return [
    `// Generated by \`npm run build\` (scripts/precompile-templates.mjs) from templates/ with handlebars ${handlebars.VERSION}; do not edit.`,
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

function registerHelpers(hbs: Handlebars): void {
  hbs.registerHelper('q', (value: unknown) => yamlQuote(value));
  hbs.registerHelper('js', (value: unknown) => JSON.stringify(value));
  // Go string literal; JSON escapes are a subset of Go's for the characters paths and names allow.
  hbs.registerHelper('goString', (value: unknown) => JSON.stringify(String(value)));
  hbs.registerHelper('flow', (values: readonly unknown[]) => `[${values.map(yamlQuote).join(', ')}]`);
  /**
   * `{{#helm}}- if .Values.x{{/helm}}` → `{{- if .Values.x }}`; also inline:
   * `{{helm '.Release.Namespace'}}`. A leading/trailing `-` is Helm's trim marker.
   */
  hbs.registerHelper('helm', function (this: unknown, ...args: unknown[]) {
    // No `fn` when the helper is used inline, whatever handlebars' types say.
    const options = args.pop() as Omit<HandlebarsNamespace.HelperOptions, 'fn'> & { fn?: HandlebarsNamespace.HelperOptions['fn'] };
    const action = (options.fn ? options.fn(this) : String(args[0])).trim();
    return `{{${action.startsWith('-') ? '' : ' '}${action}${action.endsWith('-') ? '' : ' '}}}`;
  });
}
