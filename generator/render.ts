/**
 * Renders the generated files through the handlebars templates in templates/.
 * Code here only prepares sorted, plain data; all output shape is in templates.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';
import { compareText } from './compare-text.js';
import { packageRoot } from './package-root.js';

type Template = (context: object) => string;

export interface Templates {
  readonly webhookConfigurations: Template;
  readonly webhookPaths: Template;
  readonly rbacRules: Template;
  readonly handlersIndex: Template;
}

const cache = new Map<string, Templates>();

export function loadTemplates(dir = path.join(packageRoot(), 'templates')): Templates {
  let templates = cache.get(dir);
  if (templates) return templates;
  const hbs = Handlebars.create();
  registerHelpers(hbs);
  const partials = path.join(dir, 'partials');
  for (const file of readdirSync(partials).filter((f) => f.endsWith('.hbs')).sort()) {
    hbs.registerPartial(file.replace(/\.hbs$/, ''), readFileSync(path.join(partials, file), 'utf8'));
  }
  const compile = (name: string): Template => {
    const template = hbs.compile(readFileSync(path.join(dir, name), 'utf8'), { noEscape: true, strict: true });
    return (context) => template(context);
  };
  templates = {
    webhookConfigurations: compile('webhook-configurations.yaml.hbs'),
    webhookPaths: compile('webhook-paths.tpl.hbs'),
    rbacRules: compile('rbac-rules.tpl.hbs'),
    handlersIndex: compile('handlers-index.ts.hbs'),
  };
  cache.set(dir, templates);
  return templates;
}

/**
 * A YAML double-quoted scalar (JSON strings are valid ones) that Helm's template
 * engine leaves alone: a literal `{{` becomes the action `{{ "{{" }}`.
 */
export function yamlQuote(value: unknown): string {
  return JSON.stringify(String(value)).replace(/\{\{/g, '{{ "{{" }}');
}

function registerHelpers(hbs: typeof Handlebars): void {
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
    const options = args.pop() as Handlebars.HelperOptions;
    const action = (options.fn ? options.fn(this) : String(args[0])).trim();
    return `{{${action.startsWith('-') ? '' : ' '}${action}${action.endsWith('-') ? '' : ' '}}}`;
  });
}

/** Sorts object entries into `{ key, value }` pairs so maps render in a stable order. */
export function sortedEntries(record: Readonly<Record<string, string>> | undefined): { key: string; value: string }[] | null {
  if (!record || Object.keys(record).length === 0) return null;
  return Object.keys(record)
    .sort(compareText)
    .map((key) => ({ key, value: record[key]! }));
}
