/**
 * The handlers index module that `serve` imports: one import per file naming all its classes, files
 * by specifier and classes by name, aliases for names two files share; the
 * webhook classes and the conversion classes in their own lists.
 */
import path from 'node:path';
import { toPosix } from '../chart/helm-helpers.js';
import { compareText } from '../compare-text.js';

interface DecoratedClass {
  readonly className: string;
  readonly file: string;
}

export function handlersIndexModel(webhooks: readonly DecoratedClass[], indexFile: string, conversions: readonly DecoratedClass[] = []) {
  const classes = new Map<string, { className: string; file: string; list: 'handlers' | 'conversions' }>();
  for (const { className, file } of webhooks) classes.set(`${file}\0${className}`, { className, file, list: 'handlers' });
  for (const { className, file } of conversions) classes.set(`${file}\0${className}`, { className, file, list: 'conversions' });
  const sorted = [...classes.values()]
    .map((c) => ({ ...c, specifier: importSpecifier(indexFile, c.file) }))
    .sort((a, b) => compareText(a.specifier, b.specifier) || compareText(a.className, b.className));
  const used = new Map<string, number>();
  const imports = new Map<string, { specifier: string; names: { className: string; alias: string | null }[] }>();
  const lists = { handlers: [] as { localName: string }[], conversions: [] as { localName: string }[] };
  for (const c of sorted) {
    const count = (used.get(c.className) ?? 0) + 1;
    used.set(c.className, count);
    const alias = count > 1 ? `${c.className}_${count}` : null;
    const statement = imports.get(c.specifier) ?? { specifier: c.specifier, names: [] };
    statement.names.push({ className: c.className, alias });
    imports.set(c.specifier, statement);
    lists[c.list].push({ localName: alias ?? c.className });
  }
  return { imports: [...imports.values()], handlers: lists.handlers, conversions: lists.conversions.length > 0 ? lists.conversions : null };
}

function importSpecifier(fromFile: string, toFile: string): string {
  const relative = toPosix(path.relative(path.dirname(fromFile), toFile))
    .replace(/\.(m?)ts$/, '.$1js')
    .replace(/\.tsx$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
