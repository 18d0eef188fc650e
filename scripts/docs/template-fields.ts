/**
 * Which field of the generated webhook configuration each `@Webhook` option
 * is written to, read from the generator's template
 * (packages/generator/templates/webhook-configurations.yaml.hbs and its
 * partials): every YAML key line is given its path by indentation, and the
 * handlebars expressions on it (or the `{{#if option}}` / `{{#each option}}`
 * around it) say which option fills it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Option (`failurePolicy`, or `rules.groups` inside `{{#each rules}}`) → the YAML paths it is written to. */
export type FieldMap = Map<string, string[]>;

const KEY_LINE = /^(\s*)(- )?([A-Za-z][\w.-]*):(.*)$/;
const PARTIAL = /^(\s*)\{\{>\s*([\w-]+)[^}]*\}\}\s*$/;
/** `{{q name}}`, `{{flow rules}}`, `{{goString path}}`, `{{timeoutSeconds}}`. */
const REFERENCE = /\{\{(?:(?:q|flow|goString)\s+)?([A-Za-z]\w*)\}\}/g;
const EACH = /\{\{#each\s+([A-Za-z]\w*)\}\}/;
const IF = /\{\{#if\s+([A-Za-z]\w*)\}\}/;

function expandPartials(text: string, partialsDir: string, indent = ''): string[] {
  return text.split('\n').flatMap((line) => {
    const partial = PARTIAL.exec(line);
    if (!partial) return [indent + line];
    const file = path.join(partialsDir, `${partial[2]!}.hbs`);
    return expandPartials(readFileSync(file, 'utf8'), partialsDir, indent + (partial[1] ?? ''));
  });
}

/**
 * The fields of one webhook (`webhooks[].…`) that the template fills from
 * options. `options` lists the option names; references to anything else
 * (helpers, values of the chart) are ignored.
 */
export function webhookTemplateFields(templateFile: string, options: readonly string[]): FieldMap {
  const lines = expandPartials(readFileSync(templateFile, 'utf8'), path.join(path.dirname(templateFile), 'partials'));
  const fields: FieldMap = new Map();
  const add = (option: string, field: string) => {
    const list = fields.get(option) ?? [];
    if (!list.includes(field)) list.push(field);
    fields.set(option, list);
  };
  const stack: { indent: number; path: string; item: boolean }[] = [{ indent: -1, path: '', item: false }];
  const each: string[] = [];
  let pendingIf: string | undefined;
  let lastKey: { path: string; value: string } | undefined;
  /** An option name as the current `{{#each}}` scope sees it: `rules.groups` inside rules. */
  const scoped = (name: string): string | undefined => {
    const scope = each.filter((entry) => options.includes(entry));
    if (scope.length === 0) return options.includes(name) ? name : undefined;
    return `${scope.join('.')}.${name}`;
  };
  for (const line of lines) {
    const eachMatch = EACH.exec(line);
    if (eachMatch) {
      const name = eachMatch[1]!;
      // `rules:` followed by `{{#each rules}}`: the list is the option.
      if (options.includes(name) && lastKey?.value.trim() === '') add(name, lastKey.path);
      each.push(name);
      continue;
    }
    if (line.includes('{{/each}}')) {
      each.pop();
      continue;
    }
    const ifMatch = IF.exec(line);
    if (line.trim() === ifMatch?.[0]) {
      pendingIf = ifMatch[1];
      continue;
    }
    const key = KEY_LINE.exec(line);
    if (!key || line.trimStart().startsWith('#') || line.trimStart().startsWith('{{')) continue;
    const [, spaces, dash, name, value] = key as unknown as [string, string, string | undefined, string, string];
    let indent = spaces.length;
    if (dash) {
      while (stack.at(-1)!.indent > indent) stack.pop();
      const parent = stack.at(-1)!;
      indent += 2;
      stack.push({ indent, path: `${parent.path}[]`, item: true });
    } else {
      while (stack.at(-1)!.indent > indent || (stack.at(-1)!.indent === indent && !stack.at(-1)!.item)) stack.pop();
    }
    const parent = stack.at(-1)!;
    const fieldPath = parent.path ? `${parent.path}.${name}` : name;
    stack.push({ indent, path: fieldPath, item: false });
    lastKey = { path: fieldPath, value };
    if (!fieldPath.startsWith('webhooks[].')) continue;
    if (pendingIf !== undefined) {
      const option = scoped(pendingIf);
      if (option) add(option, fieldPath);
      pendingIf = undefined;
    }
    for (const reference of value.matchAll(REFERENCE)) {
      const option = scoped(reference[1]!);
      if (option) add(option, fieldPath);
    }
  }
  return fields;
}
