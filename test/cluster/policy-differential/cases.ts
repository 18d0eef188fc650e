/**
 * The requests replayed through the API server and the local evaluator: good
 * and bad objects of the sample's CRD (Profile) and of built-in kinds
 * (Deployment, ConfigMap), created, updated and deleted. Every object is valid
 * for its schema, so that what decides is the policies, not the API server's
 * own validation. Objects an UPDATE or DELETE needs are stored before the
 * policies are installed (`stored`). Built-in objects hold no empty maps: the
 * API server decodes them into Go types that omit those (omitempty), so its
 * CEL never sees them, while a local evaluation takes the object as given.
 */
import { FIXTURE_NAMESPACES } from './fixtures.js';

export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}
export interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

export interface PolicyCase {
  readonly id: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly kind: Gvk;
  readonly resource: Gvr;
  /** CREATE and UPDATE: what is sent. */
  readonly object?: Obj;
  /** UPDATE and DELETE: what is stored first. */
  readonly stored?: Obj;
}

export const PROFILES_NAMESPACE = 'profiles';
export const WORKLOADS_NAMESPACE = 'workloads';
const PROFILE = { kind: { group: 'shaper.io', version: 'v1alpha1', kind: 'Profile' }, resource: { group: 'shaper.io', version: 'v1alpha1', resource: 'profiles' } };
const DEPLOYMENT = { kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, resource: { group: 'apps', version: 'v1', resource: 'deployments' } };
const CONFIGMAP = { kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' } };

function profile(name: string, spec: Record<string, unknown>): Obj {
  return { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name, namespace: PROFILES_NAMESPACE }, spec };
}

function deployment(name: string, labels: Record<string, string>): Obj {
  const selector = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: WORKLOADS_NAMESPACE, labels },
    spec: { selector: { matchLabels: selector }, template: { metadata: { labels: selector }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } } },
  };
}

function configMap(namespace: string, name: string, data?: Record<string, string>, labels?: Record<string, string>): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels && { labels }) }, ...(data && { data }) };
}

function profileCases(): PolicyCase[] {
  const cases: PolicyCase[] = [];
  const tiers = [undefined, 'bronze', 'silver', 'gold'];
  const priorities = [undefined, 0, 100, 499, 500, 900, 1000];
  const descriptions = [undefined, '', '   ', 'batch jobs'];
  let n = 0;
  for (const tier of tiers)
    for (const priority of priorities)
      for (const description of descriptions) {
        const spec = { ...(tier && { tier }), ...(priority !== undefined && { priority }), ...(description !== undefined && { description }) };
        cases.push({ id: `profile-create-${++n}`, operation: 'CREATE', ...PROFILE, object: profile(`p${n}`, spec) });
      }
  cases.push({
    id: 'profile-create-nospec',
    operation: 'CREATE',
    ...PROFILE,
    object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'nospec', namespace: PROFILES_NAMESPACE } },
  });
  let u = 0;
  for (const from of [undefined, 'silver', 'gold'])
    for (const to of [undefined, 'bronze', 'silver', 'gold'])
      for (const priority of [100, 800]) {
        const name = `u${++u}`;
        const stored = profile(name, { ...(from && { tier: from }), priority: 800, description: 'x' });
        cases.push({ id: `profile-update-${u}`, operation: 'UPDATE', ...PROFILE, stored, object: profile(name, { ...(to && { tier: to }), priority, description: 'x' }) });
      }
  cases.push({ id: 'profile-delete', operation: 'DELETE', ...PROFILE, stored: profile('d1', { tier: 'gold', priority: 100 }) });
  return cases;
}

function deploymentCases(): PolicyCase[] {
  const cases: PolicyCase[] = [];
  // No empty label map: the API server drops it (omitempty), and a Deployment without labels is defaulted to its template's.
  const labelSets: Record<string, string>[] = [
    { app: 'web' },
    { 'shaper.io/tier': 'bronze' },
    { 'shaper.io/tier': 'gold' },
    { 'shaper.io/tier': 'platinum' },
    { 'shaper.io/tier': '' },
    { 'shaper.io/tier': 'Gold' },
  ];
  labelSets.forEach((labels, i) => {
    cases.push({ id: `deployment-create-${i}`, operation: 'CREATE', ...DEPLOYMENT, object: deployment(`web${i}`, labels) });
    const name = `dep${i}`;
    cases.push({ id: `deployment-update-${i}`, operation: 'UPDATE', ...DEPLOYMENT, stored: deployment(name, { 'shaper.io/tier': 'silver' }), object: deployment(name, labels) });
  });
  return cases;
}

/** ConfigMaps for each fixture namespace: data shapes that pass, fail, and make expressions error. */
function configMapCases(): PolicyCase[] {
  const cases: PolicyCase[] = [];
  // No empty map: the API server drops an empty `data` of a ConfigMap (omitempty) before CEL sees the object.
  const data: (Record<string, string> | undefined)[] = [
    undefined,
    { a: '1' },
    { a: '1', b: '2', c: '3' },
    { a: '1', b: '2', c: '3', d: '4' },
    { password: 'hunter2' },
    { Password: 'x', user: 'y' },
    { mode: 'a' },
    { mode: 'c' },
    { mode: 'skip' },
    { a: 'x' },
    { b: 'x' },
    { c: 'x' },
    { a: 'x', b: 'x', c: 'x', first: 'one' },
    { first: 'one', kind: 'demo' },
    { ports: '80,443' },
    { ports: '443,80' },
    { ports: '0,70000' },
    { ports: 'eighty' },
    { host: 'Example.com' },
    { host: 'example.com', url: 'http://example.com' },
    { url: 'https://example.com/x' },
    { tags: 'a,b' },
    { tags: 'a,z' },
    { name: '_x' },
    { name: 'x_y', a: 'same', b: 'same' },
  ];
  const names = ['cm', 'mc-cm'];
  for (const namespace of Object.keys(FIXTURE_NAMESPACES)) {
    if (namespace === 'protected') continue;
    data.forEach((d, i) => {
      for (const name of namespace === 'conditions' ? names : names.slice(0, 1)) {
        cases.push({
          id: `cm-${namespace}-${name}-${i}`,
          operation: 'CREATE',
          ...CONFIGMAP,
          object: configMap(namespace, `${name}-${i}`, d, namespace.startsWith('owner') && i % 3 === 0 ? { owner: 'team-a' } : undefined),
        });
      }
    });
    if (namespace === 'owner-prod') {
      cases.push({ id: 'cm-owner-exempt', operation: 'CREATE', ...CONFIGMAP, object: configMap(namespace, 'exempt', { a: '1' }, { 'owner-exempt': 'yes' }) });
      cases.push({
        id: 'cm-owner-update-remove',
        operation: 'UPDATE',
        ...CONFIGMAP,
        stored: configMap(namespace, 'owned', { a: '1' }, { owner: 'a' }),
        object: configMap(namespace, 'owned', { a: '2' }),
      });
    }
  }
  for (const labels of [undefined, { protected: 'true' }, { protected: 'false' }]) {
    const name = `keep-${labels?.protected ?? 'none'}`;
    cases.push({ id: `cm-protected-delete-${name}`, operation: 'DELETE', ...CONFIGMAP, stored: configMap('protected', name, { a: '1' }, labels) });
    cases.push({
      id: `cm-protected-update-${name}`,
      operation: 'UPDATE',
      ...CONFIGMAP,
      stored: configMap('protected', `u${name}`, { a: '1' }, labels),
      object: configMap('protected', `u${name}`, { a: '2' }, labels),
    });
  }
  return cases;
}

export function policyCases(): PolicyCase[] {
  return [...profileCases(), ...deploymentCases(), ...configMapCases()];
}
