/**
 * A generated CRD as the object the API server stores from the chart's
 * template (templates/crd/crd.yaml.hbs), for what runs the CRD in-process
 * (shaper-gen/testing's validateCustomResource): names, scope, and each
 * version with its deprecation, subresources, columns, selectable fields and
 * schema. The conversion webhook is left out: no webhook is called in-process,
 * so a request is answered in the version it is sent in.
 */
import type { Crd, CrdVersion } from './types.js';

export interface CustomResourceDefinitionObject {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'CustomResourceDefinition';
  readonly metadata: { readonly name: string };
  readonly spec: object;
}

export function customResourceDefinition(crd: Crd): CustomResourceDefinitionObject {
  const { shortNames, categories, ...names } = crd.names;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crd.name },
    spec: {
      group: crd.group,
      names: { ...names, ...(shortNames.length > 0 && { shortNames }), ...(categories.length > 0 && { categories }) },
      scope: crd.scope,
      versions: crd.versions.map(versionObject),
    },
  };
}

function versionObject(version: CrdVersion): object {
  return {
    name: version.name,
    served: version.served,
    storage: version.storage,
    ...(version.deprecated && { deprecated: true, ...(version.deprecationWarning !== undefined && { deprecationWarning: version.deprecationWarning }) }),
    ...((version.status || version.scale) && { subresources: { ...(version.status && { status: {} }), ...(version.scale && { scale: version.scale }) } }),
    ...(version.printerColumns.length > 0 && { additionalPrinterColumns: version.printerColumns }),
    ...(version.selectableFields.length > 0 && { selectableFields: version.selectableFields }),
    schema: { openAPIV3Schema: version.schema },
  };
}
