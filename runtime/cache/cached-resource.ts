/**
 * The `cache` option of `@Webhook`: the resources a handler reads through
 * `ctx.cache`. The server keeps one informer (list + watch) per resource any
 * webhook declares; `shaper-gen manifests` grants the ServiceAccount get, list
 * and watch on each, so the declaration is the only list there is.
 */
import { allDefined, checkKeys, isPlainObject, validOnly, type Checker } from '../options/check.js';
import { isDnsLabel, isDnsSubdomain } from '../options/kubernetes-names.js';

/** A resource handlers read through `ctx.cache`, as it appears in API paths. */
export interface CachedResource {
  /** API group; `''` is the core group. */
  readonly group: string;
  readonly version: string;
  /** The plural resource name, e.g. `profiles`, `configmaps`. */
  readonly resource: string;
}

const KEYS = ['group', 'version', 'resource'];
const VERSION = /^v[0-9]+((alpha|beta)[0-9]+)?$/;
/** What the cache reads: get falls back to the API server on a miss, list and watch feed the informer. */
export const CACHE_VERBS = ['get', 'list', 'watch'] as const;

/** `profiles.shaper.io`, or `configmaps` for the core group: how kubectl names a resource. */
export function resourceKey(resource: CachedResource): string {
  return resource.group === '' ? resource.resource : `${resource.resource}.${resource.group}`;
}

/** The API path of a collection (all namespaces when `namespace` is undefined) or of one object. */
export function resourcePath(resource: CachedResource, namespace?: string, name?: string): string {
  const base = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${scope}/${resource.resource}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}

export function sameResource(a: CachedResource, b: CachedResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

export const checkCacheOption: Checker<CachedResource[]> = (value, path, report) => {
  if (!Array.isArray(value)) return (report(path, `cache must be an array of {group, version, resource}, got ${typeof value}`), undefined);
  const seen = new Set<string>();
  return validOnly(report, (report) => {
    const entries = value.map((entry, i): CachedResource | undefined => {
      const at = [...path, i];
      if (!isPlainObject(entry)) return (report(at, 'cache entry must be an object {group, version, resource}, e.g. { group: "", version: "v1", resource: "configmaps" }'), undefined);
      const reportAt = checkKeys(entry, at, report, { known: KEYS, unknown: (key, hint) => `unknown key "${key}" in cache entry; ${hint}expected ${KEYS.join(', ')}` });
      const { group, version, resource } = entry;
      if (typeof group !== 'string') reportAt([...at, 'group'], 'cache entry option "group" is required: the API group, "" for the core group');
      else if (group !== '' && !isDnsSubdomain(group)) reportAt([...at, 'group'], `API group "${group}" must be "" (core) or a DNS subdomain; "*" cannot be cached`);
      if (typeof version !== 'string') reportAt([...at, 'version'], 'cache entry option "version" is required, e.g. "v1"');
      else if (!VERSION.test(version)) reportAt([...at, 'version'], `API version "${version}" must be like "v1", "v1beta1"; "*" cannot be cached`);
      if (typeof resource !== 'string') reportAt([...at, 'resource'], 'cache entry option "resource" is required: the plural resource name, e.g. "configmaps"');
      else if (!isDnsLabel(resource, Infinity)) reportAt([...at, 'resource'], `resource "${resource}" must be a lower-case plural resource name without a subresource, e.g. "configmaps"`);
      if (typeof group !== 'string' || typeof version !== 'string' || typeof resource !== 'string') return undefined;
      const key = `${resourceKey({ group, version, resource })}/${version}`;
      if (seen.has(key)) report(at, `duplicate cache entry ${resourceKey({ group, version, resource })} ${version}`);
      seen.add(key);
      return { group, version, resource };
    });
    return allDefined(entries);
  });
};
