/**
 * The requests replayed through the API server's mutating policies and the
 * local evaluator: ConfigMaps in each ConfigMap fixture's namespace, the
 * sample's Profiles and Assignments, created and updated, with data that
 * each mutation treats differently (present, missing, erroring). Objects an
 * UPDATE needs are stored before the policies are installed.
 */
import type { Obj, PolicyCase } from './cases.js';

const CONFIGMAP = { kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' } };
const PROFILE = { kind: { group: 'shaper.io', version: 'v1alpha1', kind: 'Profile' }, resource: { group: 'shaper.io', version: 'v1alpha1', resource: 'profiles' } };
const ASSIGNMENT = { kind: { group: 'shaper.io', version: 'v1alpha1', kind: 'Assignment' }, resource: { group: 'shaper.io', version: 'v1alpha1', resource: 'assignments' } };

function configMap(namespace: string, name: string, data?: Record<string, string>, labels?: Record<string, string>, finalizers?: string[]): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels && { labels }), ...(finalizers && { finalizers }) }, ...(data && { data }) };
}

function configMapCases(): PolicyCase[] {
  const cases: PolicyCase[] = [];
  // No empty maps: the API server drops them (omitempty) before the policies see the object.
  const data: (Record<string, string> | undefined)[] = [
    undefined,
    { a: '1' },
    { mode: 'fast' },
    { mode: 'fast', a: '1' },
    { skip: 'yes' },
    { lock: 'open' },
    { lock: 'shut', mode: 'x' },
    { n: '41' },
    { n: 'forty' },
    { n: '7', mode: 'slow' },
    { 'not.there': 'x', mode: 'm' },
    { defaulted: 'mine', count: '9' },
  ];
  const labelSets: (Record<string, string> | undefined)[] = [undefined, { owner: 'team-a' }, { team: 'web', 'managed-by': 'someone' }];
  const prefixes = ['cm', 'rm', 'mv'];
  for (const namespace of ['cm-apply', 'cm-jsonpatch', 'cm-ignore']) {
    data.forEach((d, i) => {
      const labels = labelSets[i % labelSets.length];
      const prefix = prefixes[i % prefixes.length]!;
      // Set lists merge by value: the object's own finalizers keep their place around the ones a policy adds.
      const finalizers = [undefined, ['example.com/audit', 'example.com/x'], ['example.com/keep']][i % 3];
      cases.push({ id: `${namespace}-create-${i}`, operation: 'CREATE', ...CONFIGMAP, object: configMap(namespace, `${prefix}-c${i}`, d, labels, finalizers) });
      const stored = configMap(namespace, `${prefix}-u${i}`, { stored: 'yes' }, { owner: 'old' });
      cases.push({ id: `${namespace}-update-${i}`, operation: 'UPDATE', ...CONFIGMAP, stored, object: configMap(namespace, `${prefix}-u${i}`, d, labels) });
    });
  }
  return cases;
}

function profile(namespace: string, name: string, spec: Record<string, unknown> | undefined, labels?: Record<string, string>): Obj {
  return { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name, namespace, ...(labels && { labels }) }, ...(spec && { spec }) };
}

function profileCases(): PolicyCase[] {
  const cases: PolicyCase[] = [];
  let n = 0;
  for (const tier of [undefined, 'bronze', 'silver', 'gold'])
    for (const priority of [undefined, 0, 500, 950])
      for (const description of [undefined, 'kept']) {
        const spec = { ...(tier && { tier }), ...(priority !== undefined && { priority }), ...(description && { description }) };
        const labels: Record<string, string> | undefined = n % 3 === 0 ? { team: 'web' } : n % 3 === 1 ? { 'shaper.io/tier': 'stale' } : undefined;
        cases.push({ id: `profile-create-${++n}`, operation: 'CREATE', ...PROFILE, object: profile('profile-apply', `p${n}`, spec, labels) });
        const stored = profile('profile-apply', `pu${n}`, { ...(tier && { tier }), priority: 100, description: 'stored' });
        cases.push({ id: `profile-update-${n}`, operation: 'UPDATE', ...PROFILE, stored, object: profile('profile-apply', `pu${n}`, spec, labels) });
      }
  return cases;
}

function assignment(namespace: string, name: string, spec: Record<string, unknown>, labels?: Record<string, string>): Obj {
  return { apiVersion: 'shaper.io/v1alpha1', kind: 'Assignment', metadata: { name, namespace, ...(labels && { labels }) }, spec };
}

function assignmentCases(): PolicyCase[] {
  const cases: PolicyCase[] = [];
  const specs: Record<string, unknown>[] = [
    { selector: { matchLabels: { app: 'web' } } },
    { selector: { matchLabels: { app: 'web' } }, weight: 10 },
    { selector: { matchLabels: { app: 'web' } }, profileRef: { name: 'gold' } },
    { selector: { matchLabels: { app: 'web' } }, profileRef: { name: 'gold' }, weight: 90 },
    { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, profileRef: {} },
    { selector: { matchLabels: { app: 'db' } }, profileRef: { name: 'x'.repeat(64) } },
  ];
  let n = 0;
  for (const namespace of ['assignment-weight', 'assignments'])
    for (const prefix of ['a', 'atomic'])
      for (const spec of specs) {
        const labels = n % 2 === 0 ? { 'shaper.io/profile': 'old' } : undefined;
        cases.push({ id: `assignment-create-${++n}`, operation: 'CREATE', ...ASSIGNMENT, object: assignment(namespace, `${prefix}-c${n}`, spec, labels) });
        const stored = assignment(namespace, `${prefix}-u${n}`, { selector: { matchLabels: { app: 'old' } }, profileRef: { name: 'silver' }, weight: 5 });
        cases.push({ id: `assignment-update-${n}`, operation: 'UPDATE', ...ASSIGNMENT, stored, object: assignment(namespace, `${prefix}-u${n}`, spec, labels) });
      }
  return cases;
}

function gadgetCases(): PolicyCase[] {
  const GADGET = { kind: { group: 'mutating-test.shaper-gen.io', version: 'v1', kind: 'Gadget' }, resource: { group: 'mutating-test.shaper-gen.io', version: 'v1', resource: 'gadgets' } };
  const gadget = (name: string, spec: Record<string, unknown>): Obj => ({ apiVersion: 'mutating-test.shaper-gen.io/v1', kind: 'Gadget', metadata: { name, namespace: 'gadgets' }, spec });
  const specs: Record<string, unknown>[] = [
    {},
    { tags: ['a'] },
    { tags: ['c', 'a', 'b'] },
    { tags: ['b', 'z', 'c'] },
    { ports: [{ name: 'grpc', port: 9000 }] },
    {
      ports: [
        { name: 'metrics', port: 1, protocol: 'TCP' },
        { name: 'grpc', port: 9000 },
        { name: 'http', port: 80, protocol: 'TCP' },
      ],
    },
    {
      ports: [
        { name: 'http', port: 80 },
        { name: 'admin', port: 81 },
      ],
      settings: { mode: 'mine', other: 'kept' },
    },
    { tags: ['c'], ports: [{ name: 'metrics', port: 2 }], args: ['--y'], settings: { other: 'kept' } },
  ];
  const cases: PolicyCase[] = [];
  specs.forEach((spec, i) => {
    for (const prefix of ['g', 'args']) {
      cases.push({ id: `gadget-create-${prefix}-${i}`, operation: 'CREATE', ...GADGET, object: gadget(`${prefix}-c${i}`, spec) });
      const stored = gadget(`${prefix}-u${i}`, { tags: ['old'], ports: [{ name: 'old', port: 1 }] });
      cases.push({ id: `gadget-update-${prefix}-${i}`, operation: 'UPDATE', ...GADGET, stored, object: gadget(`${prefix}-u${i}`, spec) });
    }
  });
  return cases;
}

export function mutatingCases(): PolicyCase[] {
  return [...configMapCases(), ...profileCases(), ...assignmentCases(), ...gadgetCases()];
}
