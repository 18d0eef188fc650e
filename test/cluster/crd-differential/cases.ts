/**
 * The requests of the CRD differential, each sent to kube-apiserver and to
 * validateCustomResource: creates and updates over defaults, pruning, formats,
 * enums, bounds, patterns, list keys, CEL rules (messageExpression, reason,
 * fieldPath, oldSelf, optionalOldSelf), ratcheting, the status subresource,
 * metadata, versions and deprecations, and the sample's Profile and Assignment.
 */
import { GROUP } from './crds.js';

export const NAMESPACE = 'crd-diff';

export type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown> } & Record<string, unknown>;

export type CrdName = 'gadgets' | 'ratchets' | 'dials' | 'profiles' | 'assignments';

export interface CrdCase {
  readonly id: string;
  readonly crd: CrdName;
  readonly operation: 'CREATE' | 'UPDATE';
  /** The request's body; its metadata.name is the case's unless it sets one. */
  readonly object: Obj;
  /** UPDATE: created first (ratchets: under the loose schema). */
  readonly stored?: Obj;
  readonly subresource?: 'status';
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** The version in the request's URL, when it is not the body's. */
  readonly version?: string;
}

const KINDS: Record<CrdName, { apiVersion: string; kind: string; namespaced: boolean }> = {
  gadgets: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', namespaced: true },
  ratchets: { apiVersion: `${GROUP}/v1`, kind: 'Ratchet', namespaced: true },
  dials: { apiVersion: `${GROUP}/v1`, kind: 'Dial', namespaced: false },
  profiles: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', namespaced: true },
  assignments: { apiVersion: 'shaper.io/v1alpha1', kind: 'Assignment', namespaced: true },
};

export const isNamespaced = (crd: CrdName) => KINDS[crd].namespaced;

let counter = 0;
const cases: CrdCase[] = [];

type Parts = { spec?: unknown; metadata?: Record<string, unknown>; apiVersion?: string } & Record<string, unknown>;

function object(crd: CrdName, parts: Parts, name: string): Obj {
  const { metadata = {}, apiVersion, ...rest } = parts;
  return { apiVersion: apiVersion ?? KINDS[crd].apiVersion, kind: KINDS[crd].kind, metadata: { name, ...(KINDS[crd].namespaced && { namespace: NAMESPACE }), ...metadata }, ...rest };
}

function create(crd: CrdName, id: string, parts: Parts, extra: Pick<CrdCase, 'fieldValidation' | 'version'> = {}): void {
  const name = `${crd.slice(0, 3)}-${++counter}`;
  cases.push({ id: `${crd} create: ${id}`, crd, operation: 'CREATE', object: object(crd, parts, name), ...extra });
}

function update(crd: CrdName, id: string, stored: Parts, next: Parts, extra: Pick<CrdCase, 'subresource' | 'fieldValidation'> = {}): void {
  const name = `${crd.slice(0, 3)}-${++counter}`;
  cases.push({ id: `${crd} update: ${id}`, crd, operation: 'UPDATE', stored: object(crd, stored, name), object: object(crd, next, name), ...extra });
}

const gadget = (spec: Record<string, unknown>, extra: Parts = {}): Parts => ({ spec, ...extra });

// Defaults and pruning.
create('gadgets', 'an empty spec gets every default', gadget({}));
create('gadgets', 'no spec: nothing to default inside it', {});
create('gadgets', 'list-map items get their defaults', gadget({ ports: [{ name: 'http' }, { name: 'dns', protocol: 'UDP', number: 53 }] }));
create('gadgets', 'list items get their defaults', gadget({ entries: [{ key: 'a' }] }));
create('gadgets', 'a nullable null is kept', gadget({ nested: { note: null } }));
create('gadgets', 'a null with a default is defaulted', gadget({ replicas: null, nested: { level: null } }));
create('gadgets', 'unknown fields pruned, each a warning', gadget({ colour: 'red', nested: { depth: 2 } }, { extra: true, status: { bogus: 1 } }));
create('gadgets', 'unknown fields refused with fieldValidation=Strict', gadget({ colour: 'red' }), { fieldValidation: 'Strict' });
create('gadgets', 'unknown fields pruned silently with fieldValidation=Ignore', gadget({ colour: 'red' }), { fieldValidation: 'Ignore' });
create('gadgets', 'preserve-unknown-fields keeps a subtree', gadget({ settings: { a: { b: [1, 'two'] }, c: null } }));
create(
  'gadgets',
  'an embedded resource: its metadata pruned to ObjectMeta',
  gadget({ template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', colour: 'red' }, data: { k: 'v' } } }),
);
create('gadgets', 'an embedded resource without kind', gadget({ template: { apiVersion: 'v1', metadata: { name: 'cm' } } }));
create('gadgets', 'an embedded resource with an invalid name', gadget({ template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } } }));
create('gadgets', 'status on create is dropped', gadget({}, { status: { phase: 'Ready' } }));
create('gadgets', 'an unknown metadata field is pruned', gadget({}, { metadata: { colour: 'red' } }));
create('gadgets', 'int-or-string given as a string', gadget({ port: 'http' }));
create('gadgets', 'int-or-string given as a fraction', gadget({ port: 1.5 }));
create('gadgets', 'an integer and a fraction', gadget({ replicas: 2, ratio: 0.25 }));

// Enums, bounds, patterns, lengths, counts.
create('gadgets', 'a value outside the enum', gadget({ mode: 'turbo' }));
create('gadgets', 'below the minimum', gadget({ replicas: -1 }));
create('gadgets', 'above the maximum', gadget({ replicas: 101 }));
create('gadgets', 'at an exclusive maximum', gadget({ ratio: 1 }));
create('gadgets', 'a fraction within bounds', gadget({ ratio: 0.5 }));
create('gadgets', 'not a multiple', gadget({ step: 7 }));
create('gadgets', 'a multiple', gadget({ step: 10 }));
create('gadgets', 'too short and not matching the pattern', gadget({ label: 'A' }));
create('gadgets', 'too long', gadget({ label: 'abcdefghijklmnop' }));
create('gadgets', 'matching the pattern', gadget({ label: 'ok-label' }));
create('gadgets', 'beyond int32', gadget({ size: 3000000000 }));
create('gadgets', 'a string where an integer goes', gadget({ replicas: 'three' }));
create('gadgets', 'a fraction where an integer goes', gadget({ replicas: 2.5 }));
create('gadgets', 'a set with a duplicate', gadget({ tags: ['a', 'a'] }));
create('gadgets', 'too many items', gadget({ tags: ['a', 'b', 'c', 'd'] }));
create('gadgets', 'an item too long', gadget({ tags: ['abcdefghijk'] }));
create('gadgets', 'list-map keys duplicated once defaulted', gadget({ ports: [{ name: 'a' }, { name: 'a', protocol: 'TCP' }] }));
create('gadgets', 'list-map keys differing in the second key', gadget({ ports: [{ name: 'a' }, { name: 'a', protocol: 'UDP' }] }));
create('gadgets', 'a list-map item without its required key', gadget({ ports: [{ number: 1 }] }));
create('gadgets', 'too many properties', gadget({ labels: { a: '1', b: '2', c: '3', d: '4' } }));
create('gadgets', 'a map value too long', gadget({ labels: { a: 'x'.repeat(21) } }));
create('gadgets', 'a required field missing', gadget({ access: {} }));
create('gadgets', 'a required field outside its enum', gadget({ access: { role: 'admin' } }));
create('gadgets', 'an object where a string goes', gadget({ label: { a: 1 } }));
create('gadgets', 'an array where an object goes', gadget({ nested: [1] }));
create('gadgets', 'several errors at once', gadget({ replicas: 500, mode: 'x', label: '9', tags: ['a', 'a'] }));

// Formats: one valid and one invalid value each.
const FORMATS: [string, unknown, unknown][] = [
  ['email', 'ann@example.com', 'ann at example'],
  ['site', 'https://example.com/x?y=1', 'http://[::1'],
  ['when', '2026-11-27T10:00:00Z', '2026-11-27 10:00'],
  ['day', '2024-02-29', '2023-02-29'],
  ['uid', '123e4567-e89b-12d3-a456-426614174000', '123e4567'],
  ['ip', '10.0.0.1', '10.0.0.256'],
  ['ip6', '2001:db8::1', '2001:db8:::1'],
  ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
  ['host', 'api.example.com', '-bad-.example'],
  ['mac', '00:11:22:33:44:55', '00:11:22'],
  ['blob', 'aGVsbG8=', 'not base64!'],
  ['timeout', '1h30m', 'ninety minutes'],
];
for (const [field, valid, invalid] of FORMATS) {
  create('gadgets', `format of ${field}: valid`, gadget({ [field]: valid }));
  create('gadgets', `format of ${field}: invalid`, gadget({ [field]: invalid }));
}

// CEL rules.
create('gadgets', 'messageExpression, reason and fieldPath', gadget({ minReplicas: 3, replicas: 1 }));
create('gadgets', 'a rule with a reason on its object', gadget({ mode: 'off', replicas: 2 }));
create('gadgets', 'two rules of one object fail', gadget({ mode: 'off', minReplicas: 3, replicas: 1 }));
create('gadgets', 'a nested object rule', gadget({ limits: { min: 5, max: 1 } }));
create('gadgets', 'a nested object rule holds', gadget({ limits: { min: 1, max: 5 } }));
create(
  'gadgets',
  'a list item rule with messageExpression',
  gadget({
    entries: [
      { key: 'a', value: 1 },
      { key: 'b', value: -1 },
    ],
  }),
);
create('gadgets', 'a list rule with a reason', gadget({ entries: [{ key: '', value: 1 }] }));
create('gadgets', 'a rule on the root reading metadata.name', gadget({}, { metadata: { name: 'a-gadget-name-of-21-c' } }));
create('gadgets', 'schema errors stop the rules', gadget({ replicas: 200, minReplicas: 300 }));
create('gadgets', 'a transition rule with optionalOldSelf on create: wrong start', gadget({ stage: 'running' }));
create('gadgets', 'a transition rule with optionalOldSelf on create: right start', gadget({ stage: 'new' }));
create('gadgets', 'a transition rule without optionalOldSelf is not run on create', gadget({ owner: 'ann', counter: 3 }));

// Metadata.
create('gadgets', 'a name that is no DNS subdomain', gadget({}, { metadata: { name: 'Bad_Name' } }));
create('gadgets', 'a name too long for the API server and for the rule', gadget({}, { metadata: { name: `g${'x'.repeat(253)}` } }));
create('gadgets', 'an invalid label key', gadget({}, { metadata: { labels: { 'bad key': 'v' } } }));
create('gadgets', 'an invalid label value', gadget({}, { metadata: { labels: { key: 'bad value!' } } }));
create('gadgets', 'an invalid annotation key', gadget({}, { metadata: { annotations: { 'a/b/c': 'v' } } }));
create('gadgets', 'a finalizer without a domain', gadget({}, { metadata: { finalizers: ['cleanup'] } }));
create('gadgets', 'a finalizer with a domain but no path', gadget({}, { metadata: { finalizers: ['cleanup.example.com'] } }));
create('gadgets', 'a qualified finalizer', gadget({}, { metadata: { finalizers: ['example.com/cleanup'] } }));
create('gadgets', 'an invalid finalizer', gadget({}, { metadata: { finalizers: ['a/b/c'] } }));
create('gadgets', 'labels and annotations kept', gadget({}, { metadata: { labels: { app: 'web' }, annotations: { note: 'x' } } }));
create('gadgets', 'the wrong kind at the resource', { ...gadget({}), kind: 'Gizmo' });
create('gadgets', 'another version of the group in the body', gadget({}, { apiVersion: `${GROUP}/v2` }), { version: 'v1' });

// Updates: transition rules, generation, status.
const base = { mode: 'safe', owner: 'ann', counter: 5, stage: 'new' };
update('gadgets', 'an immutable field changed', gadget(base), gadget({ ...base, owner: 'bob' }));
update('gadgets', 'an immutable field kept', gadget(base), gadget({ ...base, replicas: 3 }));
update('gadgets', 'a counter going down', gadget(base), gadget({ ...base, counter: 4 }));
update('gadgets', 'a counter going up', gadget(base), gadget({ ...base, counter: 6 }));
update('gadgets', 'a stage moving on', gadget(base), gadget({ ...base, stage: 'running' }));
update('gadgets', 'a final stage left', gadget({ ...base, stage: 'done' }), gadget({ ...base, stage: 'new' }));
update('gadgets', 'a final stage kept', gadget({ ...base, stage: 'done' }), gadget({ ...base, stage: 'done', replicas: 2 }));
update('gadgets', 'a stage set on update without an old value: optionalOldSelf', gadget({ mode: 'safe' }), gadget({ mode: 'safe', stage: 'running' }));
update('gadgets', 'an immutable field removed', gadget(base), gadget({ mode: 'safe', counter: 5, stage: 'new' }));
update('gadgets', 'unknown fields on update', gadget(base), gadget({ ...base, colour: 'red' }));
update('gadgets', 'a spec change bumps the generation', gadget(base), gadget({ ...base, replicas: 4 }));
update('gadgets', 'a label change keeps the generation', gadget(base), gadget(base, { metadata: { labels: { a: 'b' } } }));
update('gadgets', 'status through the main resource is kept as stored', gadget(base, { status: {} }), gadget(base, { status: { phase: 'Ready' } }));
update('gadgets', 'a removed default field comes back', gadget(base), gadget({ owner: 'ann', counter: 5, stage: 'new' }));
update('gadgets', 'an enum broken on update', gadget(base), gadget({ ...base, mode: 'turbo' }));
update('gadgets', 'a CEL rule broken on update', gadget(base), gadget({ ...base, minReplicas: 9 }));
update('gadgets', 'another uid', gadget(base), gadget(base, { metadata: { uid: '00000000-0000-0000-0000-000000000001' } }));
update('gadgets', 'a finalizer added on update', gadget(base), gadget(base, { metadata: { finalizers: ['cleanup'] } }));
update('gadgets', 'status subresource: a valid status', gadget(base), gadget(base, { status: { phase: 'Ready', observed: 1 } }), { subresource: 'status' });
update('gadgets', 'status subresource: outside the enum', gadget(base), gadget(base, { status: { phase: 'Done' } }), { subresource: 'status' });
update('gadgets', 'status subresource: a status CEL rule', gadget(base), gadget(base, { status: { observed: 5000 } }), { subresource: 'status' });
update('gadgets', 'status subresource: spec changes are ignored', gadget(base), gadget({ ...base, replicas: 7 }, { status: { phase: 'Pending' } }), { subresource: 'status' });
update('gadgets', 'status subresource: unknown status fields', gadget(base), gadget(base, { status: { phase: 'Ready', colour: 'red' } }), { subresource: 'status' });

// Ratcheting: objects stored under the loose schema, updated under the strict one.
const loose = {
  code: 'abcd',
  level: 'medium',
  count: 50,
  low: 5,
  high: 1,
  note: 'toolong',
  items: [
    { name: 'a', weight: 0 },
    { name: 'a', weight: 0 },
  ],
  other: 'x',
};
const ratchet = (spec: Record<string, unknown>, extra: Parts = {}): Parts => ({ spec, ...extra });
update('ratchets', 'only labels change', ratchet(loose), ratchet(loose, { metadata: { labels: { a: 'b' } } }));
update('ratchets', 'a valid field changes', ratchet(loose), ratchet({ ...loose, other: 'y' }));
update('ratchets', 'an invalid pattern changed to another invalid value', ratchet(loose), ratchet({ ...loose, code: 'xyz1' }));
update('ratchets', 'an invalid pattern fixed', ratchet(loose), ratchet({ ...loose, code: 'ABC' }));
update('ratchets', 'an invalid enum changed', ratchet(loose), ratchet({ ...loose, level: 'mid' }));
update('ratchets', 'an invalid maximum changed', ratchet(loose), ratchet({ ...loose, count: 60 }));
update('ratchets', 'a CEL rule of a changed object', ratchet(loose), ratchet({ ...loose, low: 6 }));
update('ratchets', 'an invalid length changed', ratchet(loose), ratchet({ ...loose, note: 'toolong2' }));
update(
  'ratchets',
  'a duplicated list-map item changed',
  ratchet(loose),
  ratchet({
    ...loose,
    items: [
      { name: 'a', weight: 2 },
      { name: 'a', weight: 0 },
    ],
  }),
);
update(
  'ratchets',
  'list-map duplicates added where there were none',
  ratchet({ ...loose, items: [{ name: 'a', weight: 1 }] }),
  ratchet({
    ...loose,
    items: [
      { name: 'b', weight: 1 },
      { name: 'b', weight: 1 },
    ],
  }),
);
update('ratchets', 'everything fixed', ratchet(loose), ratchet({ code: 'ABC', level: 'low', count: 1, low: 1, high: 2, note: 'ok', items: [{ name: 'a', weight: 1 }], other: 'x' }));
update('ratchets', 'an invalid field removed', ratchet(loose), ratchet({ ...loose, code: undefined }));
create('ratchets', 'the strict schema on create', ratchet(loose));

// Versions: a cluster-scoped kind stored as v1, served as v1beta1 and v1alpha1 (deprecated) with defaults of their own.
const at = (version: string, spec: Record<string, unknown>, extra: Parts = {}): Parts => ({ apiVersion: `${GROUP}/${version}`, spec, ...extra });
create('dials', 'v1 defaults', at('v1', {}));
create('dials', 'v1beta1: its defaults and the default deprecation warning', at('v1beta1', {}));
create('dials', 'v1beta1: a field v1 does not have, pruned in storage', at('v1beta1', { legacyKnob: 'on' }));
create('dials', 'v1alpha1: its own deprecation warning', at('v1alpha1', { level: 2 }));
create('dials', 'v1: an unknown field', at('v1', { legacyKnob: 'on' }));
create('dials', 'v1beta1: above the maximum', at('v1beta1', { level: 11 }));
create('dials', 'a namespace in the body of a cluster-scoped kind', at('v1', {}, { metadata: { namespace: 'somewhere' } }));
create('dials', 'an invalid name', at('v1', {}, { metadata: { name: 'Dial.1' } }));
update('dials', 'v1beta1 over an object created as v1', at('v1', { mode: 'set' }), at('v1beta1', { mode: 'set', level: 3 }));
update('dials', 'v1 removing a defaulted field', at('v1', { mode: 'set', level: 3 }), at('v1', { level: 3 }));

// The sample's kinds, as shaper-gen manifests generates their CRDs.
const profile = (spec: Record<string, unknown>, extra: Parts = {}): Parts => ({ spec, ...extra });
create('profiles', 'every field', profile({ tier: 'gold', priority: 900, resources: { cpu: '500m', memory: 536870912 }, description: 'for the web team' }));
create('profiles', 'a tier outside the enum', profile({ tier: 'platinum' }));
create('profiles', 'a priority above 1000', profile({ priority: 2000 }));
create('profiles', 'a priority below 0', profile({ priority: -1 }));
create('profiles', 'a description too long', profile({ description: 'x'.repeat(257) }));
create('profiles', 'a quantity of the wrong type', profile({ resources: { cpu: true } }));
create('profiles', 'unknown fields', profile({ tier: 'gold', colour: 'red', resources: { gpu: 1 } }));
create('profiles', 'status on create', profile({ tier: 'gold' }, { status: { assignments: 3 } }));
update('profiles', 'a tier change (the webhook refuses it, the CRD does not)', profile({ tier: 'bronze' }), profile({ tier: 'gold' }));
update('profiles', 'status subresource', profile({ tier: 'bronze' }), profile({ tier: 'bronze' }, { status: { assignments: 2 } }), { subresource: 'status' });
const selector = { matchLabels: { app: 'web' } };
create('assignments', 'every field', { spec: { profileRef: { name: 'gold' }, selector: { ...selector, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }, weight: 50 } });
create('assignments', 'a weight of 0', { spec: { profileRef: { name: 'gold' }, selector, weight: 0 } });
create('assignments', 'a weight above 100', { spec: { selector, weight: 101 } });
create('assignments', 'an operator outside the enum', { spec: { selector: { matchExpressions: [{ key: 'tier', operator: 'Has' }] } } });
create('assignments', 'a match expression without its key', { spec: { selector: { matchExpressions: [{ operator: 'Exists' }] } } });
create('assignments', 'unknown fields', { spec: { profileRef: { name: 'gold', namespace: 'x' }, selector, priority: 1 } });
update('assignments', 'a weight changed', { spec: { selector, weight: 10 } }, { spec: { selector, weight: 20 } });

export const CRD_CASES: readonly CrdCase[] = cases;
