/**
 * The schemas of the project's CustomResourceDefinitions (the `crds` files of
 * shaper.yaml), by resource and version: what a policy's `object` is typed
 * from when it matches a custom resource.
 */
import { readFileSync } from 'node:fs';
import { glob } from 'tinyglobby';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from 'shaper-gen/internal/generator';
import type { StructuralSchema } from '../cel/schema-types.js';
import { diagnosticIn, type Diagnostic } from '../diagnostics.js';
import type { PolicyCheckContext } from './scan-policy.js';

interface CrdDocument {
  readonly kind?: unknown;
  readonly spec?: {
    readonly group?: unknown;
    readonly names?: { readonly plural?: unknown };
    readonly versions?: readonly { readonly name?: unknown; readonly schema?: { readonly openAPIV3Schema?: StructuralSchema } }[];
  };
}

export async function loadCrdSchemas(root: string, patterns: readonly string[]): Promise<PolicyCheckContext> {
  const schemas = new Map<string, StructuralSchema>();
  const files = patterns.length === 0 ? [] : (await glob([...patterns], { cwd: root, absolute: true, onlyFiles: true })).sort();
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    let documents: CrdDocument[];
    try {
      const text = readFileSync(file, 'utf8');
      documents = text
        .split(/^---\s*$/m)
        .filter((part) => part.trim() !== '')
        .map((part) => parseYaml(part) as CrdDocument);
    } catch (error) {
      diagnostics.push(diagnosticIn(file, `cannot read this CRD file: ${(error as Error).message.split('\n')[0]!}`));
      continue;
    }
    for (const document of documents) {
      const group = document.spec?.group;
      const plural = document.spec?.names?.plural;
      if (document.kind !== 'CustomResourceDefinition' || typeof group !== 'string' || typeof plural !== 'string') {
        diagnostics.push(diagnosticIn(file, 'not a CustomResourceDefinition with spec.group and spec.names.plural: list only CRD files under `crds` in shaper.yaml'));
        continue;
      }
      for (const version of document.spec?.versions ?? []) {
        const schema = version.schema?.openAPIV3Schema;
        if (typeof version.name === 'string' && schema) schemas.set(`${group}\0${version.name}\0${plural}`, schema);
      }
    }
  }
  if (diagnostics.length > 0) throw new ConfigError(diagnostics, 'CRDs');
  return {
    resourceSchema(group, version, resource) {
      const schema = schemas.get(`${group}\0${version}\0${resource}`);
      return schema && { name: `${resource}.${group}/${version}`, schema };
    },
  };
}
