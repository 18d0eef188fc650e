/**
 * The files `shaper-gen init` writes, read from the package's scaffold/ folder
 * with `__NAME__`-style placeholders filled in. The chart in scaffold/chart is
 * the product's chart: this repository's sample chart is the same scaffold
 * filled in for the sample (a test keeps them identical).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compareText } from '../compare-text.js';
import { packageRoot } from '../package-root.js';

export interface ScaffoldFile {
  /** Path relative to the target directory, with "/" separators. */
  readonly path: string;
  readonly content: string;
}

export interface ChartVariables {
  /** Chart name: a DNS label; every helper and object is named after it. */
  readonly name: string;
  readonly description: string;
  /** Image repository (the tag defaults to the chart's appVersion). */
  readonly image: string;
  /** The compiled handlers module, relative to the image's WORKDIR. */
  readonly handlers: string;
}

const PLACEHOLDER = /__([A-Z]+)__/g;
// npm leaves dot-files like .gitignore out of published packages: they are stored without the dot.
const DOT_FILES = new Set(['gitignore', 'dockerignore', 'gitkeep']);

export function chartScaffold(variables: ChartVariables): ScaffoldFile[] {
  return readScaffold('chart', `charts/${variables.name}/`, variables);
}

export function projectScaffold(variables: ChartVariables): ScaffoldFile[] {
  return [...readScaffold('project', '', variables), ...chartScaffold(variables)];
}

function readScaffold(folder: string, prefix: string, variables: ChartVariables): ScaffoldFile[] {
  const root = path.join(packageRoot(), 'scaffold', folder);
  const values: Record<string, string> = {
    NAME: variables.name,
    DESCRIPTION: variables.description,
    IMAGE: variables.image,
    HANDLERS: variables.handlers,
  };
  return listFiles(root).map((relative) => {
    const content = scaffoldText(`${folder}/${relative}`, values);
    const base = path.posix.basename(relative);
    const target = DOT_FILES.has(base) ? path.posix.join(path.posix.dirname(relative), `.${base}`) : relative;
    return { path: prefix + target.replace(/^\.\//, ''), content };
  });
}

/** A file of the package's scaffold/ folder with its `__NAME__`-style placeholders filled in from `values`. */
export function scaffoldText(file: string, values: Readonly<Record<string, string>>): string {
  return readFileSync(path.join(packageRoot(), 'scaffold', file), 'utf8').replace(PLACEHOLDER, (match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`scaffold/${file}: unknown placeholder ${match}`);
    return value;
  });
}

function listFiles(root: string, dir = ''): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      return entry.isDirectory() ? listFiles(root, relative) : [relative];
    })
    .sort(compareText);
}
