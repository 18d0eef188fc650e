/**
 * Which field of the generated objects each decorator option is written to,
 * read from the generator's templates
 * (templates/webhook/webhook-configurations.yaml.hbs,
 * validating-admission-policies.yaml.hbs and their partials): every YAML key
 * line is given its path by indentation, and the handlebars expressions on it
 * (or the `{{#if option}}` / `{{#each option}}` around it) say which option
 * fills it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Option (`failurePolicy`, or `rules.groups` inside `{{#each rules}}`) → the YAML paths it is written to. */
export type FieldMap = Map<string, string[]>;

const KEY_LINE = /^(\s*)(- )?([A-Za-z][\w.-]*):(.*)$/;
const PARTIAL = /^(\s*)\{\{>\s*([\w-]+)([^}]*)\}\}\s*$/;
/** `{{> (lookup . 'clientConfigPartial')}}`: the partial its caller names in a hash parameter (`clientConfigPartial='client-config'`). */
const DYNAMIC_PARTIAL = /^(\s*)\{\{>\s*\(lookup \. '(\w+)'\)[^}]*\}\}\s*$/;
const PARTIAL_NAME_PARAMETER = /(\w+)='([\w-]+)'/g;
/** `{{q name}}`, `{{flow rules}}`, `{{goString path}}`, `{{timeoutSeconds}}`, `{{q paramKind.kind}}`. */
const REFERENCE = /\{\{(?:(?:q|flow|goString)\s+)?([A-Za-z][\w.]*)\}\}/g;
const EACH = /\{\{#each\s+([A-Za-z]\w*)\}\}/;
const IF = /\{\{#if\s+([A-Za-z][\w.]*)\}\}/;

/** templates/<concept>/partials/<name>.hbs: a partial's name is its file name, whichever concept's folder holds it. */
function partialFile(templatesRoot: string, name: string): string {
  const concepts = readdirSync(templatesRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const file = concepts.map((concept) => path.join(templatesRoot, concept.name, 'partials', `${name}.hbs`)).find((candidate) => existsSync(candidate));
  if (!file) throw new Error(`scripts/docs: no partial ${name} under ${templatesRoot}/*/partials/`);
  return file;
}

function expandPartials(text: string, templatesRoot: string, indent = '', parameters: ReadonlyMap<string, string> = new Map()): string[] {
  return text.split('\n').flatMap((line) => {
    const dynamic = DYNAMIC_PARTIAL.exec(line);
    if (dynamic) {
      const name = parameters.get(dynamic[2]!);
      if (!name) throw new Error(`scripts/docs: the partial's caller names no ${dynamic[2]}: ${line.trim()}`);
      return expandPartials(readFileSync(partialFile(templatesRoot, name), 'utf8'), templatesRoot, indent + (dynamic[1] ?? ''), parameters);
    }
    const partial = PARTIAL.exec(line);
    if (!partial) return [indent + line];
    const named = new Map([...parameters, ...[...(partial[3] ?? '').matchAll(PARTIAL_NAME_PARAMETER)].map((m) => [m[1]!, m[2]!] as const)]);
    return expandPartials(readFileSync(partialFile(templatesRoot, partial[2]!), 'utf8'), templatesRoot, indent + (partial[1] ?? ''), named);
  });
}

/**
 * The fields of one webhook (`webhooks[].…`) that the template fills from
 * options. `options` lists the option names; references to anything else
 * (helpers, values of the chart) are ignored.
 */
export function webhookTemplateFields(templateFile: string, options: readonly string[]): FieldMap {
  return linesFields(templateLines(templateFile), options, (fieldPath) => (fieldPath.startsWith('webhooks[].') ? fieldPath : undefined));
}

/**
 * The fields of each object of a template with several (`---` between them),
 * named `<kind> <path>`: `ValidatingAdmissionPolicy spec.failurePolicy`. Only
 * `metadata.name` and `spec.…` are kept; labels and the like come from helpers.
 */
export function objectTemplateFields(templateFile: string, options: readonly string[]): FieldMap {
  const fields: FieldMap = new Map();
  const documents: string[][] = [[]];
  for (const line of templateLines(templateFile)) {
    if (line.trim() === '---') documents.push([]);
    else documents.at(-1)!.push(line);
  }
  for (const lines of documents) {
    const kind = lines.map((line) => /^kind:\s*(\w+)\s*$/.exec(line)?.[1]).find((found) => found !== undefined);
    if (!kind) continue;
    const found = linesFields(lines, options, (fieldPath) => (fieldPath === 'metadata.name' || fieldPath.startsWith('spec.') ? `${kind} ${fieldPath}` : undefined));
    for (const [option, paths] of found) fields.set(option, [...(fields.get(option) ?? []), ...paths.filter((p) => !fields.get(option)?.includes(p))]);
  }
  return fields;
}

/** The template's text with its partials expanded, as it renders. */
export function templateText(templateFile: string): string {
  return templateLines(templateFile).join('\n');
}

function templateLines(templateFile: string): string[] {
  // templates/<concept>/<file>.hbs
  return expandPartials(readFileSync(templateFile, 'utf8'), path.dirname(path.dirname(templateFile)));
}

/** Walks the template's lines; `keep` names a field path to report, or drops it. */
function linesFields(lines: readonly string[], options: readonly string[], keep: (fieldPath: string) => string | undefined): FieldMap {
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
  /** An option name as the current `{{#each}}` scope sees it: `rules.groups` inside rules; `paramRef.name` outside any. */
  const scoped = (name: string): string | undefined => {
    const scope = each.filter((entry) => options.includes(entry));
    if (scope.length === 0) return options.includes(name.split('.')[0]!) ? name : undefined;
    return `${scope.join('.')}.${name}`;
  };
  for (const line of lines) {
    const eachMatch = EACH.exec(line);
    // `key: … {{#each option}}…{{/each}} …` on one line is a reference on a key line, not a block.
    const inlineEach = eachMatch && line.includes('{{/each}}', eachMatch.index) ? eachMatch[1] : undefined;
    if (eachMatch && !inlineEach) {
      const name = eachMatch[1]!;
      // `rules:` followed by `{{#each rules}}`: the list is the option.
      if (options.includes(name) && lastKey?.value.trim() === '') {
        const kept = keep(lastKey.path);
        if (kept) add(name, kept);
      }
      each.push(name);
      continue;
    }
    if (line.includes('{{/each}}') && !inlineEach) {
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
    const kept = keep(fieldPath);
    if (!kept) continue;
    if (pendingIf !== undefined) {
      const option = scoped(pendingIf);
      if (option) add(option, kept);
      pendingIf = undefined;
    }
    const references = [...value.matchAll(REFERENCE)].map((reference) => reference[1]!);
    for (const reference of inlineEach ? [...references, inlineEach] : references) {
      const option = scoped(reference);
      if (option) add(option, kept);
    }
  }
  return fields;
}
