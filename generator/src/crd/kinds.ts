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
import type { MarkerReader } from './markers.js';
import type { SchemaBuilder } from './schema.js';
import { followJsonPath } from './json-paths.js';
import { positionInValue, type MarkerTag } from './marker-syntax.js';
import type { CrdVersion, PrinterColumn, ResourceNames, ScaleSubresource, Schema, Scope, SelectableField } from './types.js';

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
      const schema = schemas.kindSchema(statement, `${apiPackage.group.value}/${apiPackage.version.value}`);
      const version: CrdVersion = {
        name: apiPackage.version.value,
        served: byName('unservedversion').length === 0,
        storage: false,
        deprecated: byName('deprecatedversion').length > 0,
        deprecationWarning: (byName('deprecatedversion')[0]?.argument as KeyArguments | undefined)?.values.warning as string | undefined,
        ...subresources(byName('subresource'), reader, schema),
        printerColumns: printerColumns(byName('printcolumn'), reader, schema),
        selectableFields: selectableFields(byName('selectablefield'), reader, schema),
        schema,
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

function subresources(markers: readonly Applied[], reader: MarkerReader, schema: Schema): { status: boolean; scale?: ScaleSubresource } {
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
    const problem = scaleProblem(values, schema);
    if (problem) reader.report(marker, problem.message, problem.key ? positionInValue(marker, positions[problem.key]!, values[problem.key] as string, problem.at ?? 0) : undefined);
    else scale = values as unknown as ScaleSubresource;
  }
  return scale ? { status, scale } : { status };
}

/** What the scale subresource reads and writes at each path: one integer, and the selector serialized as a string. */
const SCALE_PATHS = [
  { key: 'specReplicasPath', under: ['spec'], type: 'integer' },
  { key: 'statusReplicasPath', under: ['status'], type: 'integer' },
  { key: 'labelSelectorPath', under: ['spec', 'status'], type: 'string' },
] as const;

function scaleProblem(values: Readonly<Record<string, unknown>>, schema: Schema): { message: string; key?: string; at?: number } | undefined {
  if (values.specReplicasPath === undefined || values.statusReplicasPath === undefined)
    return { message: '@shaper:subresource scale needs specReplicasPath=.spec.… and statusReplicasPath=.status.…' };
  for (const { key, under, type } of SCALE_PATHS) {
    const jsonPath = values[key] as string | undefined;
    if (jsonPath === undefined) continue;
    const where = `@shaper:subresource scale ${key}`;
    if (!under.some((field) => jsonPath.startsWith(`.${field}.`) && jsonPath.length > field.length + 2)) {
      return { message: `${where} must be a JSON path under ${under.map((field) => `.${field}`).join(' or ')}`, key };
    }
    const end = followJsonPath(jsonPath, schema);
    if ('problem' in end) return { message: `${where}: ${end.problem}`, key, at: end.at };
    if (end.throughList) return { message: `${where} must name one field, not go through a list`, key };
    if (end.schema?.type !== undefined && end.schema.type !== type) {
      const what = type === 'integer' ? 'the replica count, an integer' : 'the label selector serialized as a string, as kubectl scale and the HorizontalPodAutoscaler read it';
      return { message: `${where} ${jsonPath} is a field of type ${end.schema.type}; it must hold ${what}`, key };
    }
  }
  return undefined;
}

function printerColumns(markers: readonly Applied[], reader: MarkerReader, schema: Schema): PrinterColumn[] {
  const columns: PrinterColumn[] = [];
  for (const { argument, marker } of markers) {
    const { values, positions } = argument as KeyArguments;
    const column = values as unknown as PrinterColumn;
    const end = column.jsonPath.startsWith('.') ? followJsonPath(column.jsonPath, schema) : undefined;
    if (column.name.trim() === '') reader.report(marker, '@shaper:printcolumn name must not be blank', positions.name);
    else if (columns.some((c) => c.name === column.name)) reader.report(marker, `@shaper:printcolumn ${JSON.stringify(column.name)} is declared twice`, positions.name);
    else if (!end) reader.report(marker, '@shaper:printcolumn jsonPath is a JSON path starting with "." (e.g. .spec.replicas)', positions.jsonPath);
    else if ('problem' in end) reader.report(marker, `@shaper:printcolumn jsonPath: ${end.problem}`, positionInValue(marker, positions.jsonPath!, column.jsonPath, end.at));
    else if (column.priority !== undefined && column.priority < 0) reader.report(marker, '@shaper:printcolumn priority must be 0 or more', positions.priority);
    else columns.push({ ...column });
  }
  return columns;
}

/** The API server's limit of selectable fields per version. */
const MAX_SELECTABLE_FIELDS = 8;

function selectableFields(markers: readonly Applied[], reader: MarkerReader, schema: Schema): SelectableField[] {
  const fields: SelectableField[] = [];
  for (const { argument, marker } of markers) {
    const { values, positions } = argument as KeyArguments;
    const jsonPath = values.jsonPath as string;
    const at = positions.jsonPath;
    const where = '@shaper:selectablefield jsonPath';
    const end = followJsonPath(jsonPath, schema);
    if (!jsonPath.startsWith('.')) reader.report(marker, `${where} is a JSON path starting with "." (e.g. .spec.color)`, at);
    else if ('problem' in end) reader.report(marker, `${where}: ${end.problem}`, positionInValue(marker, at!, jsonPath, end.at));
    else if (jsonPath.startsWith('.metadata.') || jsonPath.startsWith("['metadata']"))
      reader.report(marker, `${where} must not name a field of metadata (the API server selects metadata.name and metadata.namespace itself)`, at);
    else if (end.throughList || jsonPath.includes('[')) reader.report(marker, `${where} must name one field with "." steps, not go through a list`, at);
    else if (!['string', 'integer', 'boolean'].includes(end.schema?.type ?? '')) {
      reader.report(marker, `${where} ${jsonPath} must name a string, integer or boolean field${end.schema?.type ? `, not a field of type ${end.schema.type}` : ''}`, at);
    } else if (fields.some((f) => f.jsonPath === jsonPath)) reader.report(marker, `${where} ${jsonPath} is declared twice`, at);
    else if (fields.length === MAX_SELECTABLE_FIELDS) reader.report(marker, `at most ${MAX_SELECTABLE_FIELDS} @shaper:selectablefield per version: the API server refuses more`);
    else fields.push({ jsonPath });
  }
  return fields;
}
