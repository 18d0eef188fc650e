/**
 * The versions of each kind joined into one CustomResourceDefinition per
 * group and kind: versions in Kubernetes' priority order (v1 before v1beta1
 * before v1alpha1), one storage version, names and scope the same in every
 * version, no two kinds of a group with the same plural.
 */
import path from 'node:path';
import { KUBERNETES_VERSION } from './api-names.js';
import { where } from './api-packages.js';
import type { KindVersion } from './kinds.js';
import type { MarkerReader } from './markers.js';
import type { Crd } from './types.js';

export function assembleCrds(kinds: readonly KindVersion[], reader: MarkerReader, root: string): Crd[] {
  const byKind = new Map<string, KindVersion[]>();
  for (const kind of kinds) {
    const key = `${kind.names.kind}.${kind.group}`;
    byKind.set(key, [...(byKind.get(key) ?? []), kind]);
  }
  const crds: Crd[] = [];
  for (const versions of byKind.values()) {
    const crd = assemble(versions, reader, root);
    if (crd) crds.push(crd);
  }
  checkPlurals(crds, kinds, reader, root);
  return crds.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function assemble(declared: readonly KindVersion[], reader: MarkerReader, root: string): Crd | undefined {
  const versions = [...declared].sort((a, b) => compareVersions(a.version.name, b.version.name) || (a.file < b.file ? -1 : 1));
  const first = versions[0]!;
  let valid = true;
  for (const [index, kind] of versions.entries()) {
    if (index === 0) continue;
    const previous = versions[index - 1]!;
    if (kind.version.name === previous.version.name) {
      reader.report(kind.marker, `${kind.names.kind} ${kind.version.name} is declared twice, here and at ${where(root, previous.marker)}`);
      valid = false;
    }
    const disagreement = namesDisagreement(first, kind);
    if (disagreement) {
      reader.report(
        kind.marker,
        `the versions of ${kind.names.kind} disagree on ${disagreement}: @shaper:resource must say the same in every version (${first.version.name} at ${where(root, first.marker)})`,
      );
      valid = false;
    }
  }
  const storage = storageVersion(versions, reader);
  if (!valid || !storage) return undefined;
  if (!versions.some((kind) => kind.version.served)) {
    reader.report(first.marker, `no version of ${first.names.kind} is served: remove @shaper:unservedversion from one`);
    return undefined;
  }
  return {
    name: `${first.names.plural}.${first.group}`,
    group: first.group,
    scope: first.scope,
    names: first.names,
    versions: versions.map((kind) => ({ ...kind.version, storage: kind === storage })),
    sources: [...new Set(versions.map((kind) => path.relative(root, kind.file)))].sort(),
  };
}

function namesDisagreement(a: KindVersion, b: KindVersion): string | undefined {
  if (a.scope !== b.scope) return 'scope';
  for (const key of ['plural', 'singular', 'shortNames', 'categories'] as const) {
    if (JSON.stringify(a.names[key]) !== JSON.stringify(b.names[key])) return key;
  }
  return undefined;
}

function storageVersion(versions: readonly KindVersion[], reader: MarkerReader): KindVersion | undefined {
  if (versions.length === 1) return versions[0];
  const marked = versions.filter((kind) => kind.storageMarked);
  if (marked.length === 1) return marked[0];
  const kind = versions[0]!.names.kind;
  const names = versions.map((v) => v.version.name).join(', ');
  if (marked.length === 0) reader.report(versions[0]!.marker, `${kind} has several versions (${names}): mark the one stored in etcd with @shaper:storageversion`);
  else reader.report(marked[1]!.marker, `${kind}: only one version can be @shaper:storageversion (${marked.map((v) => v.version.name).join(', ')} are)`);
  return undefined;
}

function checkPlurals(crds: readonly Crd[], kinds: readonly KindVersion[], reader: MarkerReader, root: string): void {
  const seen = new Map<string, Crd>();
  for (const crd of crds) {
    const other = seen.get(crd.name);
    if (other) {
      const marker = kinds.find((k) => k.group === crd.group && k.names.kind === crd.names.kind)!.marker;
      const otherMarker = kinds.find((k) => k.group === other.group && k.names.kind === other.names.kind)!.marker;
      reader.report(
        marker,
        `${crd.names.kind} and ${other.names.kind} (${where(root, otherMarker)}) have the same plural ${JSON.stringify(crd.names.plural)} in ${crd.group}; set plural= on one`,
      );
    }
    seen.set(crd.name, crd);
  }
}

/** Kubernetes' version priority: GA before beta before alpha, higher numbers first, then other names alphabetically. */
export function compareVersions(a: string, b: string): number {
  const rank = (name: string): [number, number, number] | undefined => {
    const match = KUBERNETES_VERSION.exec(name);
    if (!match) return undefined;
    const level = match[2] === undefined ? 3 : match[2] === 'beta' ? 2 : 1;
    return [level, Number(match[1]), Number(match[3] ?? 0)];
  };
  const [x, y] = [rank(a), rank(b)];
  if (x && y) return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
  if (x) return -1;
  if (y) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
