/**
 * CustomResourceDefinition YAML files another project owns (controller-gen's
 * output, a release's CRDs): found from the files, directories and globs
 * shaper.yaml lists, and read into what shaper-gen uses of them, each
 * version's schema: it types policies' `object` (policy/crd-schemas.ts) and
 * becomes TypeScript types (crd-types/).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { LineCounter, parseAllDocuments } from 'yaml';
import { compareText } from '../compare-text.js';
import { diagnosticIn, type Diagnostic } from '../diagnostics.js';

/** One node of a CRD's OpenAPI v3 schema, as far as shaper-gen reads it. */
export interface CrdSchema {
  readonly type?: string;
  readonly format?: string;
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly nullable?: boolean;
  readonly properties?: Readonly<Record<string, CrdSchema>>;
  readonly required?: readonly string[];
  readonly items?: CrdSchema;
  readonly additionalProperties?: CrdSchema | boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
}

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
  readonly schema?: CrdSchema;
}

export interface CrdSource {
  /** Absolute path of the file the CRD was read from. */
  readonly file: string;
  /** The line its YAML document starts on. */
  readonly line: number;
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope: string;
  readonly versions: readonly CrdVersion[];
}

export interface CrdFiles {
  /** Every file found, absolute, sorted, each once. */
  readonly files: readonly string[];
  /** The entries that name no existing file, directory or matching glob. */
  readonly unmatched: readonly string[];
}

/** The CRD files `entries` name, relative to `root`: a file, a directory (its `*.yaml` and `*.yml`), or a glob. */
export async function findCrdFiles(root: string, entries: readonly string[]): Promise<CrdFiles> {
  const files = new Set<string>();
  const unmatched: string[] = [];
  for (const entry of entries) {
    const isDirectory = statSync(path.resolve(root, entry), { throwIfNoEntry: false })?.isDirectory() ?? false;
    const pattern = isDirectory ? `${entry.replace(/\/+$/, '')}/*.{yaml,yml}` : entry;
    const found = await glob([pattern], { cwd: root, absolute: true, onlyFiles: true });
    if (found.length === 0) unmatched.push(entry);
    for (const file of found) files.add(path.normalize(file));
  }
  return { files: [...files].sort(compareText), unmatched };
}

/** Reads every document of `files`; each must be an apiextensions.k8s.io/v1 CustomResourceDefinition. */
export function readCrdFiles(files: readonly string[]): { crds: CrdSource[]; diagnostics: Diagnostic[] } {
  const crds: CrdSource[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      diagnostics.push(diagnosticIn(file, `cannot read this CRD file: ${(error as Error).message}`));
      continue;
    }
    const lineCounter = new LineCounter();
    for (const document of parseAllDocuments(text, { lineCounter, prettyErrors: false })) {
      const at = (offset: number) => lineCounter.linePos(offset);
      const [error] = document.errors;
      if (error) {
        const { line, col } = at(error.pos[0]);
        diagnostics.push(diagnosticIn(file, `cannot read this CRD file: ${error.message.split('\n')[0]!}`, line, col));
        continue;
      }
      const value: unknown = document.toJS();
      if (value === null || value === undefined) continue;
      const { line } = at(document.contents?.range[0] ?? 0);
      const crd = crdOf(value);
      if (typeof crd === 'string') diagnostics.push(diagnosticIn(file, crd, line));
      else crds.push({ file, line, ...crd });
    }
  }
  return { crds, diagnostics };
}

interface CrdDocument {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly spec?: {
    readonly group?: unknown;
    readonly scope?: unknown;
    readonly names?: { readonly kind?: unknown; readonly plural?: unknown };
    readonly versions?: unknown;
  };
}

interface VersionDocument {
  readonly name?: unknown;
  readonly served?: unknown;
  readonly storage?: unknown;
  readonly deprecated?: unknown;
  readonly deprecationWarning?: unknown;
  readonly schema?: { readonly openAPIV3Schema?: CrdSchema };
}

/** The CRD, or why the document is not one shaper-gen reads. */
function crdOf(value: unknown): Omit<CrdSource, 'file' | 'line'> | string {
  const document = value as CrdDocument;
  const { group, scope, names, versions } = document.spec ?? {};
  if (document.kind !== 'CustomResourceDefinition' || typeof group !== 'string' || typeof names?.kind !== 'string' || typeof names.plural !== 'string' || !Array.isArray(versions)) {
    return 'not a CustomResourceDefinition with spec.group, spec.names.kind, spec.names.plural and spec.versions: list only CRD files (the `crds` and `types` of shaper.yaml, `create types --from`)';
  }
  if (document.apiVersion !== 'apiextensions.k8s.io/v1') {
    return `a CustomResourceDefinition of ${String(document.apiVersion)}: only apiextensions.k8s.io/v1 is read (v1beta1 was removed in Kubernetes 1.22; regenerate it, e.g. with controller-gen's crd:crdVersions=v1)`;
  }
  return {
    group,
    kind: names.kind,
    plural: names.plural,
    scope: typeof scope === 'string' ? scope : 'Namespaced',
    versions: (versions as VersionDocument[]).filter((version) => typeof version.name === 'string').map(versionOf),
  };
}

function versionOf(version: VersionDocument): CrdVersion {
  const schema = version.schema?.openAPIV3Schema;
  return {
    name: version.name as string,
    served: version.served === true,
    storage: version.storage === true,
    deprecated: version.deprecated === true,
    ...(typeof version.deprecationWarning === 'string' && { deprecationWarning: version.deprecationWarning }),
    ...(schema !== undefined && { schema }),
  };
}
