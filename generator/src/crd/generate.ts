/**
 * `shaper-gen manifests`' CRD part: the files with `@shaper:` markers are
 * read through the type checker (program.ts), their API packages' groups and
 * versions (api-packages.ts) and kinds (kinds.ts) found, each kind's schema
 * built from its type (schema.ts), the versions joined into CRDs (crds.ts),
 * and each CRD rendered as a chart template `templates/crds/<group>_<plural>.yaml`.
 * Any problem is a `file:line:col` diagnostic and nothing is written.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import type { GeneratedFile } from '../manifests/output.js';
import { helmHelpers } from '../chart/helm-helpers.js';
import type { PolicyCheckContext } from '../policy/scan-policy.js';
import type { Templates } from '../chart/render.js';
import type { ConversionModels } from '../conversion/model.js';
import { readApiPackages, type ApiPackage } from './api-packages.js';
import { assembleCrds } from './crds.js';
import { checkRuleCosts } from './rule-cost.js';
import { findKnownTypes } from './known-types.js';
import { readKinds, type KindVersion } from './kinds.js';
import { MarkerReader } from './markers.js';
import { diagnosticAtPosition } from './marker-syntax.js';
import { buildCrdProgram, markerCandidates } from './program.js';
import { SchemaBuilder } from './schema.js';
import type { Crd } from './types.js';
import { crdSize, CRD_SIZE_WARNING, ETCD_REQUEST_LIMIT, sizeWords } from './size.js';
import { blockYaml } from './yaml.js';

/** Where generated CRDs go, under the chart's templates/. */
export const CRD_TEMPLATES_DIR = 'crds';

export interface CrdScan {
  readonly crds: readonly Crd[];
  readonly diagnostics: readonly Diagnostic[];
  /** What does not stop generation: a CRD near the size the API server stores. */
  readonly warnings: readonly Diagnostic[];
  /** Files with markers. */
  readonly candidateFiles: number;
}

/** Reads the CRDs the sources declare; `root` is the project root, for paths in messages and headers. */
export function scanCustomResources(tsconfigPath: string, sources: readonly string[], root: string): CrdScan {
  const declared = readDeclarations(tsconfigPath, sources, root);
  if (!declared) return { crds: [], diagnostics: [], warnings: [], candidateFiles: 0 };
  const crds = assembleCrds(declared.kinds, declared.reader, root);
  checkRuleCosts(crds);
  return { crds, diagnostics: unique(sortDiagnostics(declared.diagnostics)), warnings: sizeWarnings(crds, declared.kinds), candidateFiles: declared.candidateFiles };
}

/** A warning at the `@shaper:resource` of each kind whose CRD comes near what the API server stores (size.ts). */
function sizeWarnings(crds: readonly Crd[], kinds: readonly KindVersion[]): Diagnostic[] {
  return crds.flatMap((crd) => {
    const { bytes, largest } = crdSize(crd);
    const kind = kinds.find((k) => k.group === crd.group && k.names.kind === crd.names.kind);
    if (bytes < CRD_SIZE_WARNING || !kind) return [];
    const fields = largest.map((field) => `${field.path} (${sizeWords(field.bytes)})`).join(', ');
    return [
      diagnosticAtPosition(
        kind.marker.sourceFile,
        kind.marker.start,
        `warning: the CRD ${crd.name} is ${sizeWords(bytes)} as JSON, over a third of the ${sizeWords(ETCD_REQUEST_LIMIT)} etcd stores in one request (a server-side apply's managedFields can double it)` +
          `${fields ? `; its largest fields: ${fields}` : ''}: shorten their descriptions with @shaper:maxDescLen (0 drops them) on those fields or on the kind, or declare fewer versions`,
      ),
    ];
  });
}

/** The API packages and kinds the sources declare, as far as they can be read (`shaper-gen create api` adds to them). */
export interface ApiDeclarations {
  readonly packages: readonly ApiPackage[];
  readonly kinds: readonly KindVersion[];
}

export function readApiDeclarations(tsconfigPath: string, sources: readonly string[], root: string): ApiDeclarations {
  const declared = readDeclarations(tsconfigPath, sources, root);
  return { packages: declared ? [...declared.packages.values()] : [], kinds: declared?.kinds ?? [] };
}

function readDeclarations(tsconfigPath: string, sources: readonly string[], root: string) {
  const candidates = markerCandidates(sources);
  if (candidates.length === 0) return undefined;
  const program = buildCrdProgram(tsconfigPath, candidates);
  const diagnostics: Diagnostic[] = [];
  const reader = new MarkerReader(program.checker, diagnostics);
  for (const sourceFile of program.candidates) reader.readFile(sourceFile);
  const packages = readApiPackages(program.candidates, reader, program.checker, root);
  const schemas = new SchemaBuilder(program.checker, findKnownTypes(program), reader);
  const kinds = readKinds(program.candidates, reader, packages, schemas, root);
  return { packages, kinds, reader, diagnostics, candidateFiles: candidates.length };
}

/** A problem of a type used in several places is found at each: reported once. */
function unique(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.source.file}:${d.source.line}:${d.source.column}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The schema's block is indented under `openAPIV3Schema:` in crd.yaml.hbs. */
const SCHEMA_INDENT = 10;

/** Each CRD's template; `conversions` gives the conversion webhook of a kind that has one. */
export function crdFiles(crds: readonly Crd[], templates: Templates, chartDir: string, chartName: string, conversions: ConversionModels = new Map()): GeneratedFile[] {
  return crds.map((crd) => ({
    path: path.join(chartDir, 'templates', CRD_TEMPLATES_DIR, `${crd.group}_${crd.names.plural}.yaml`),
    content: templates.crd({
      ...crd,
      helpers: helmHelpers(chartName),
      conversion: conversions.get(`${crd.group}/${crd.names.kind}`) ?? null,
      versions: crd.versions.map((version) => ({
        ...version,
        hasSubresources: version.status || version.scale !== undefined,
        schema: blockYaml(version.schema as Record<string, unknown>, SCHEMA_INDENT),
      })),
    }),
  }));
}

/** What the generated header of a CRD template starts with (crd.yaml.hbs). */
const GENERATED_HEADER = '# Code generated by shaper-gen manifests from ';

/**
 * Generated CRD templates of an earlier run that this run does not produce (a
 * kind removed or renamed): left in place, helm would keep installing them.
 * Only files with the generated header are considered; others are the user's.
 */
export function obsoleteCrdFiles(chartDir: string, files: readonly GeneratedFile[]): string[] {
  const dir = path.join(chartDir, 'templates', CRD_TEMPLATES_DIR);
  if (!existsSync(dir)) return [];
  const produced = new Set(files.map((file) => file.path));
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => path.join(dir, name))
    .filter(
      (file) =>
        !produced.has(file) &&
        readFileSync(file, 'utf8')
          .split('\n', 3)
          .some((line) => line.startsWith(GENERATED_HEADER)),
    );
}

/**
 * What policies type `object` from: the schema of a generated CRD's version,
 * else `files`' (the CRD files shaper.yaml lists, for kinds this project does
 * not declare).
 */
export function withGeneratedCrds(crds: readonly Crd[], files: PolicyCheckContext): PolicyCheckContext {
  const generated = new Map(
    crds.flatMap((crd) => crd.versions.map((version) => [`${crd.group}\0${version.name}\0${crd.names.plural}`, { name: `${crd.name}/${version.name}`, schema: version.schema }] as const)),
  );
  return {
    resourceSchema: (group, version, resource) => generated.get(`${group}\0${version}\0${resource}`) ?? files.resourceSchema(group, version, resource),
  };
}
