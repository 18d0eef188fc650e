/**
 * The size of a generated CRD against what the API server stores
 * comfortably. etcd refuses a request over its `--max-request-bytes`, 1.5 MiB
 * by default (the API server then answers "etcdserver: request is too
 * large"), and the stored CRD is more than its spec: a server-side apply
 * (helm 4, `kubectl apply --server-side`) adds managedFields naming every
 * field the applier set, every schema keyword and property name again, which
 * for a schema can come near its own size, and the object keeps its status
 * and annotations besides. So the warning comes at a third of the limit,
 * while there is room for that doubling and for one more version. (The
 * doubling is an estimate from managedFields' shape, not a measurement.)
 */
import type { Crd, Schema } from './types.js';

/** etcd's default --max-request-bytes. */
export const ETCD_REQUEST_LIMIT = 1.5 * 1024 * 1024;
/** A third of it: room for managedFields to double the CRD, and for another version. */
export const CRD_SIZE_WARNING = ETCD_REQUEST_LIMIT / 3;
/** A field is named among the largest when it holds at least this share of the CRD. */
const LARGE_SHARE = 0.15;

export interface CrdSize {
  /** Bytes of the CRD as compact JSON, as the API server receives it. */
  readonly bytes: number;
  /** The most specific fields holding a large share of it, largest first: `spec.template.spec` and its bytes in all versions. */
  readonly largest: readonly { readonly path: string; readonly bytes: number }[];
}

export function crdSize(crd: Crd): CrdSize {
  const object = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crd.name },
    spec: {
      group: crd.group,
      names: crd.names,
      scope: crd.scope,
      versions: crd.versions.map(({ schema, printerColumns, selectableFields, ...version }) => ({
        ...version,
        additionalPrinterColumns: printerColumns,
        selectableFields,
        schema: { openAPIV3Schema: schema },
      })),
    },
  };
  const bytes = jsonBytes(object);
  const byPath = new Map<string, number>();
  for (const version of crd.versions) collect(version.schema, '', byPath);
  const large = [...byPath].filter(([, size]) => size >= bytes * LARGE_SHARE);
  const specific = large.filter(([path]) => !large.some(([other]) => other.startsWith(`${path}.`) || other.startsWith(`${path}[]`)));
  return { bytes, largest: specific.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([path, size]) => ({ path, bytes: size })) };
}

/** Adds each field's schema size under its path (`spec.template`, `spec.ports[]`), summed over versions. */
function collect(schema: Schema, path: string, byPath: Map<string, number>): void {
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const childPath = path === '' ? name : `${path}.${name}`;
    byPath.set(childPath, (byPath.get(childPath) ?? 0) + jsonBytes(child));
    collect(child, childPath, byPath);
  }
  if (schema.items) collect(schema.items, `${path}[]`, byPath);
  if (schema.additionalProperties) collect(schema.additionalProperties, `${path}.*`, byPath);
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** 1.02 MiB, 486 KiB. */
export function sizeWords(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
