/**
 * Kinds: interfaces (or type aliases) marked `@shaper:resource`, each one
 * version of one kind, with the group and version of its API package and its
 * names, scope, subresources and printer columns from its kind markers.
 */
import path from 'node:path';
import type { ts as TS } from 'ts-morph';
import { loadTypeScript } from '../typescript/compiler.js';
import { isDns1035Label, kindProblem, pluralize } from './api-names.js';
import { relativeDirectory, type ApiPackage } from './api-packages.js';
import type { KeyArguments } from './marker-arguments.js';
import type { MarkerTag } from './marker-syntax.js';
import type { MarkerReader } from './markers.js';
import type { SchemaBuilder } from './schema.js';
import type { CrdVersion, PrinterColumn, ResourceNames, ScaleSubresource, Scope } from './types.js';

const ts = loadTypeScript();

/** One version of one kind, as declared. */
export interface KindVersion {
  readonly group: string;
  readonly scope: Scope;
  readonly names: ResourceNames;
  readonly version: CrdVersion;
  /** Marked @shaper:storageversion. */
  readonly storageMarked: boolean;
  /** The @shaper:resource marker, where problems of the whole kind are reported. */
  readonly marker: MarkerTag;
  readonly file: string;
}

export function readKinds(candidates: readonly TS.SourceFile[], reader: MarkerReader, packages: ReadonlyMap<string, ApiPackage>, schemas: SchemaBuilder, root: string): KindVersion[] {
  const kinds: KindVersion[] = [];
  for (const sourceFile of candidates) {
    for (const statement of sourceFile.statements) {
      if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement)) continue;
      const markers = reader.markersOf(statement, 'kind');
      const resource = markers.find((m) => m.definition.name === 'resource');
      if (!resource) continue;
      const apiPackage = packages.get(path.dirname(sourceFile.fileName));
      if (!apiPackage?.group || !apiPackage.version) {
        const missing = [apiPackage?.group ? undefined : '@shaper:groupName', apiPackage?.version ? undefined : '@shaper:versionName'].filter(Boolean).join(' and ');
        reader.report(
          resource.marker,
          `${statement.name.text}: no ${missing} in ${relativeDirectory(root, path.dirname(sourceFile.fileName))}; declare the API group and version once per directory, on exported string consts (docs/guides/crds.md)`,
        );
        continue;
      }
      const kind = readKind(statement, resource.argument as KeyArguments, resource.marker, reader);
      if (!kind) continue;
      const byName = (name: string) => markers.filter((m) => m.definition.name === name);
      const version: CrdVersion = {
        name: apiPackage.version.value,
        served: byName('unservedversion').length === 0,
        storage: false,
        deprecated: byName('deprecatedversion').length > 0,
        deprecationWarning: (byName('deprecatedversion')[0]?.argument as KeyArguments | undefined)?.values.warning as string | undefined,
        ...subresources(byName('subresource'), reader),
        printerColumns: printerColumns(byName('printcolumn'), reader),
        schema: schemas.kindSchema(statement, `${apiPackage.group.value}/${apiPackage.version.value}`),
      };
      kinds.push({ group: apiPackage.group.value, ...kind, version, storageMarked: byName('storageversion').length > 0, marker: resource.marker, file: sourceFile.fileName });
    }
  }
  return kinds;
}

function readKind(
  declaration: TS.InterfaceDeclaration | TS.TypeAliasDeclaration,
  { values, positions }: KeyArguments,
  marker: MarkerTag,
  reader: MarkerReader,
): { scope: Scope; names: ResourceNames } | undefined {
  const kind = declaration.name.text;
  const problem = kindProblem(kind);
  if (problem) {
    reader.report(marker, problem);
    return undefined;
  }
  const lower = kind.toLowerCase();
  const names: ResourceNames = {
    kind,
    listKind: `${kind}List`,
    plural: (values.plural as string | undefined) ?? pluralize(lower),
    singular: (values.singular as string | undefined) ?? lower,
    shortNames: (values.shortName as string[] | undefined) ?? [],
    categories: (values.categories as string[] | undefined) ?? [],
  };
  let valid = true;
  for (const [key, words] of [
    ['plural', [names.plural]],
    ['singular', [names.singular]],
    ['shortName', names.shortNames],
    ['categories', names.categories],
  ] as const) {
    for (const word of words) {
      if (isDns1035Label(word)) continue;
      reader.report(marker, `@shaper:resource ${key} ${JSON.stringify(word)} must be a lower-case DNS label starting with a letter`, positions[key]);
      valid = false;
    }
  }
  return valid ? { scope: (values.scope as Scope | undefined) ?? 'Namespaced', names } : undefined;
}

type Applied = ReturnType<MarkerReader['markersOf']>[number];

function subresources(markers: readonly Applied[], reader: MarkerReader): { status: boolean; scale?: ScaleSubresource } {
  let status = false;
  let scale: ScaleSubresource | undefined;
  for (const { argument, marker } of markers) {
    const { positional, values, positions } = argument as KeyArguments;
    if ((positional === 'status' && status) || (positional === 'scale' && scale)) {
      reader.report(marker, `@shaper:subresource ${positional} is declared twice`);
      continue;
    }
    if (positional === 'status') {
      if (Object.keys(values).length > 0) reader.report(marker, '@shaper:subresource status takes no keys');
      status = true;
      continue;
    }
    const problem = scaleProblem(values);
    if (problem) reader.report(marker, problem.message, problem.key ? positions[problem.key] : undefined);
    else scale = values as unknown as ScaleSubresource;
  }
  return scale ? { status, scale } : { status };
}

function scaleProblem(values: Readonly<Record<string, unknown>>): { message: string; key?: string } | undefined {
  const spec = values.specReplicasPath as string | undefined;
  const status = values.statusReplicasPath as string | undefined;
  const selector = values.labelSelectorPath as string | undefined;
  if (spec === undefined || status === undefined) return { message: '@shaper:subresource scale needs specReplicasPath=.spec.… and statusReplicasPath=.status.…' };
  if (!/^\.spec\.\S/.test(spec)) return { message: '@shaper:subresource scale specReplicasPath must be a JSON path under .spec', key: 'specReplicasPath' };
  if (!/^\.status\.\S/.test(status)) return { message: '@shaper:subresource scale statusReplicasPath must be a JSON path under .status', key: 'statusReplicasPath' };
  if (selector !== undefined && !/^\.(spec|status)\.\S/.test(selector))
    return { message: '@shaper:subresource scale labelSelectorPath must be a JSON path under .spec or .status', key: 'labelSelectorPath' };
  return undefined;
}

function printerColumns(markers: readonly Applied[], reader: MarkerReader): PrinterColumn[] {
  const columns: PrinterColumn[] = [];
  for (const { argument, marker } of markers) {
    const { values, positions } = argument as KeyArguments;
    const column = values as unknown as PrinterColumn;
    if (column.name.trim() === '') reader.report(marker, '@shaper:printcolumn name must not be blank', positions.name);
    else if (columns.some((c) => c.name === column.name)) reader.report(marker, `@shaper:printcolumn ${JSON.stringify(column.name)} is declared twice`, positions.name);
    else if (!column.jsonPath.startsWith('.')) reader.report(marker, '@shaper:printcolumn jsonPath is a JSON path starting with "." (e.g. .spec.replicas)', positions.jsonPath);
    else if (column.priority !== undefined && column.priority < 0) reader.report(marker, '@shaper:printcolumn priority must be 0 or more', positions.priority);
    else columns.push({ ...column });
  }
  return columns;
}
