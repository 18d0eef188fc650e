/**
 * The schemas of the CustomResourceDefinitions another project owns (the
 * `crds` files of shaper.yaml and the `from` of its `types`), by resource and
 * version: what a policy's `object` is typed from when it matches one of their
 * custom resources.
 */
import { ConfigError } from 'shaper-gen/internal/generator';
import type { StructuralSchema } from '../cel/schema-types.js';
import { findCrdFiles, readCrdFiles } from '../crd-types/crd-files.js';
import type { PolicyCheckContext } from './scan-policy.js';

export async function loadCrdSchemas(root: string, entries: readonly string[]): Promise<PolicyCheckContext> {
  const { files } = await findCrdFiles(root, entries);
  const { crds, diagnostics } = readCrdFiles(files);
  if (diagnostics.length > 0) throw new ConfigError(diagnostics, 'CRDs');
  const schemas = new Map<string, StructuralSchema>();
  for (const crd of crds) {
    for (const version of crd.versions) if (version.schema) schemas.set(`${crd.group}\0${version.name}\0${crd.plural}`, version.schema);
  }
  return {
    resourceSchema(group, version, resource) {
      const schema = schemas.get(`${group}\0${version}\0${resource}`);
      return schema && { name: `${resource}.${group}/${version}`, schema };
    },
  };
}
