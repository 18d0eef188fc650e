/**
 * The resource a policy's paramKind names, found as the API server's policy
 * source finds it: by discovery of the kind's group and version. A kind the
 * API server does not serve is left out; the engine then refuses as the
 * server does ("failed to find resource referenced by paramKind").
 */
import type { ApiConnection } from '../../kube/api-connection.js';
import { readText } from '../../kube/api-connection.js';
import type { CachedResource } from '../../cache/cached-resource.js';

export interface ParamResource {
  readonly resource: CachedResource;
  readonly scope: 'Namespaced' | 'Cluster';
}

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

export async function discoverParamResource(connection: ApiConnection, paramKind: { apiVersion: string; kind: string }): Promise<ParamResource | undefined> {
  const [group, version] = paramKind.apiVersion.includes('/') ? paramKind.apiVersion.split('/', 2) : ['', paramKind.apiVersion];
  const response = await connection.get(group ? `/apis/${group}/${version}` : `/api/${version}`, { idleTimeoutMs: 10_000 });
  const text = await readText(response);
  if (response.statusCode === 404) return undefined;
  if (response.statusCode !== 200) throw new Error(`discovery of ${paramKind.apiVersion}: HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
  const { resources } = JSON.parse(text) as { resources: DiscoveredResource[] };
  const found = resources.find((resource) => resource.kind === paramKind.kind && !resource.name.includes('/'));
  return found && { resource: { group: group!, version: version!, resource: found.name }, scope: found.namespaced ? 'Namespaced' : 'Cluster' };
}
