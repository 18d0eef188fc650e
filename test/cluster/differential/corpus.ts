/**
 * The differential corpus: `@Webhook` option sets at the edges of every rule
 * (each one deviation from a base both sides accept, so the verdict is about
 * that rule) and seeded random combinations of valid and invalid values.
 *
 * Every case gets its own `configuration` unless it tests that option: its
 * webhooks then render into one object of their own, and cases generated
 * together cannot collide on webhook names.
 */
import { CEL_EXPRESSIONS } from './cel-expressions.js';
import { seededRandom } from '../../../support/seeded-random.js';

export type Options = Record<string, unknown>;

export interface Case {
  /** `e017` (edge) or `r042` (random). */
  readonly id: string;
  readonly label: string;
  /** The `@Webhook({...})` arguments, one decorated class each. */
  readonly webhooks: readonly Options[];
}

export const RANDOM_SEED = 0x5eed13;
export const RANDOM_CASES = 200;

const RULE = { groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] };
const a = (n: number, char = 'a') => char.repeat(n);
/** A DNS subdomain of exactly `length` characters, in labels of at most 63. */
const subdomain = (length: number): string => {
  const labels: string[] = [];
  let left = length;
  while (left > 0) {
    const size = Math.min(63, left === 64 ? 62 : left);
    labels.push(a(size, String.fromCharCode(97 + (labels.length % 26))));
    left -= size + 1;
  }
  return labels.join('.');
};
const condition = (expression: string, name = 'c') => ({ name, expression });
const conditions = (count: number) => Array.from({ length: count }, (_, i) => condition('true', `c${i}`));

type Edit = (base: Options) => Options | Options[];
interface Edge {
  readonly label: string;
  readonly mutating?: boolean;
  readonly edit: Edit;
}
const set =
  (patch: Options): Edit =>
  (base) => ({ ...base, ...patch });
const setRule =
  (patch: Options): Edit =>
  (base) => ({ ...base, rules: [{ ...RULE, ...patch }] });
const edge = (label: string, edit: Edit, mutating = false): Edge => ({ label, edit, mutating });
const each = <T>(values: readonly T[], make: (value: T) => Edge): Edge[] => values.map(make);

const PATHS: readonly [string, string][] = [
  ['segment of 63', `/validate-${a(54)}`],
  ['segment of 64', `/validate-${a(55)}`],
  ['segment of 253', `/validate-${subdomain(244)}`],
  ['segment of 254', `/validate-${subdomain(245)}`],
  ['second segment of 63', `/validate-x/${a(63)}`],
  ['second segment of 64', `/validate-x/${a(64)}`],
  ['second segment of 253', `/validate-x/${subdomain(253)}`],
  ['second segment of 254', `/validate-x/${subdomain(254)}`],
  ['"//"', '/validate-x//y'],
  ['trailing "/"', '/validate-x/'],
  ['trailing "/" after two segments', '/validate-x/y/'],
  ['upper case', '/validate-X'],
  ['underscore', '/validate-x_y'],
  ['dot in a segment', '/validate-x.y'],
  ['".." in a segment', '/validate-x..y'],
  ['segment ending in "-"', '/validate-x-'],
  ['bare prefix', '/validate-'],
  ['no prefix', '/x'],
  ['prefix without "-"', '/validatex'],
  ['no leading "/"', 'validate-x'],
  ['root', '/'],
  ['empty', ''],
  ['space', '/validate-x y'],
  ['query', '/validate-x?y=1'],
  ['fragment', '/validate-x#y'],
  ['percent', '/validate-x%20'],
  ['non-ASCII', '/validate-ä'],
  ['three segments', '/validate-x/y.z/w'],
];

const NAMES: readonly [string, string][] = [
  ['three segments', 'a.b.c'],
  ['two segments', 'a.b'],
  ['one segment', 'a'],
  ['empty', ''],
  ['253 characters', subdomain(253)],
  ['254 characters', subdomain(254)],
  ['a label of 64', `${a(64)}.b.c`],
  ['upper case', 'A.b.c'],
  ['underscore', 'a_b.c.d'],
  ['leading "-"', '-a.b.c'],
  ['trailing "."', 'a.b.c.'],
  ['label ending in "-"', 'a-.b.c'],
];

const LABEL_KEYS: readonly [string, string][] = [
  ['name of 63', a(63)],
  ['name of 64', a(64)],
  ['prefix of 253', `${subdomain(253)}/x`],
  ['prefix of 254', `${subdomain(254)}/x`],
  ['empty', ''],
  ['empty prefix', '/x'],
  ['two "/"', 'a/b/c'],
  ['upper-case prefix', 'A.com/b'],
  ['leading "_"', '_a'],
  ['inner "_" and "."', 'a_b.c'],
  ['upper-case name', 'Team'],
];

const LABEL_VALUES: readonly [string, string][] = [
  ['empty', ''],
  ['63 characters', a(63)],
  ['64 characters', a(64)],
  ['leading "-"', '-a'],
  ['space', 'a b'],
  ['inner "_" and "."', 'a_b.c'],
];

function edges(): Edge[] {
  const validSelector = { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] };
  return [
    edge('base validating webhook', (base) => base),
    edge('base mutating webhook', (base) => base, true),
    edge(
      'every option set',
      (base) => ({
        ...base,
        name: 'every.option.shaper.io',
        rules: [RULE, { groups: [''], versions: ['v1'], resources: ['pods', 'pods/status'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
        failurePolicy: 'Ignore',
        matchPolicy: 'Exact',
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: 5,
        reinvocationPolicy: 'IfNeeded',
        admissionReviewVersions: ['v1', 'v1beta1'],
        namespaceSelector: validSelector,
        objectSelector: validSelector,
        matchConditions: [condition("request.operation == 'CREATE'")],
        rbac: [{ groups: [''], resources: ['configmaps'], verbs: ['get'] }],
      }),
      true,
    ),

    ...PATHS.map(([label, path]) => edge(`path: ${label}`, set({ path, name: 'path.shaper.io' }))),
    ...PATHS.slice(0, 4).map(([label, path]) => edge(`path: ${label}, default name`, set({ path }))),
    // Default names end in the first dotted API group of the rules (here shaper.io), else shaper-gen.io.
    edge('path: default name of 253', set({ path: `/validate-${a(234)}` })),
    edge('path: default name of 254', set({ path: `/validate-${a(235)}` })),
    edge('path: default name of 253 for the core group', (base) => ({ ...base, path: `/validate-${a(230)}`, rules: [{ ...RULE, groups: [''] }] })),
    edge('path: default name of 254 for the core group', (base) => ({ ...base, path: `/validate-${a(231)}`, rules: [{ ...RULE, groups: [''] }] })),
    edge('name: default name of 253 from a long API group', setRule({ groups: [subdomain(239)] })),
    edge('name: default name of 254 from a long API group', setRule({ groups: [subdomain(240)] })),
    edge('name: default domain from the second rule', (base) => ({
      ...base,
      rules: [
        { ...RULE, groups: ['apps'] },
        { ...RULE, groups: ['example.com'] },
      ],
    })),
    edge('path: two segments of 200, default name', set({ path: `/validate-${subdomain(191)}/${subdomain(200)}` })),
    edge('path: validating prefix on a mutating webhook', set({ path: '/validate-kind', name: 'kind.shaper.io' }), true),
    edge('path: mutating prefix on a validating webhook', set({ path: '/mutate-kind', name: 'kind.shaper.io' })),
    edge('path: not a string', set({ path: 7, name: 'path.shaper.io' })),

    ...NAMES.map(([label, name]) => edge(`name: ${label}`, set({ name }))),
    edge('name: duplicate, same kind', (base) => [
      { ...base, name: 'dup.shaper.io' },
      { ...base, path: `${base.path as string}-2`, name: 'dup.shaper.io' },
    ]),
    edge('name: duplicate, other kind', (base) => [
      { ...base, name: 'dup.shaper.io' },
      { ...base, mutating: true, path: '/mutate-dup', name: 'dup.shaper.io' },
    ]),
    edge('name: same default name from two paths', (base) => [
      { ...base, path: '/validate-x.y' },
      { ...base, path: '/validate-x/y' },
    ]),
    edge('path: duplicate, names differ', (base) => [
      { ...base, name: 'one.shaper.io' },
      { ...base, name: 'two.shaper.io' },
    ]),

    ...each(
      [
        ['40 characters', a(40)],
        ['41 characters', a(41)],
        ['upper case', 'Config'],
        ['dot', 'a.b'],
        ['underscore', 'a_b'],
        ['leading "-"', '-a'],
        ['empty', ''],
      ] as const,
      ([label, configuration]) => edge(`configuration: ${label}`, set({ configuration })),
    ),

    edge('rules: empty list', set({ rules: [] })),
    edge('rules: missing', (base) => ({ path: base.path, mutating: base.mutating })),
    edge('rules: two rules', set({ rules: [RULE, { ...RULE, resources: ['assignments'] }] })),
    edge('rules: unknown key', setRule({ foo: 1 })),
    ...each([[], [''], ['*'], ['*', 'apps'], ['Apps'], ['apps', 'apps'], ['a_b'], ['apps.k8s.io']], (groups) => edge(`groups: ${JSON.stringify(groups)}`, setRule({ groups }))),
    ...each([[], [''], ['*'], ['*', 'v1'], ['V1'], ['v1.0'], ['v1', 'v1'], ['v1', 'v2beta3']], (versions) => edge(`versions: ${JSON.stringify(versions)}`, setRule({ versions }))),
    ...each(
      [
        [],
        [''],
        ['*'],
        ['*/*'],
        ['*/*', 'pods'],
        ['*', 'pods'],
        ['pods', '*'],
        ['*', 'pods/status'],
        ['pods/*', 'pods/status'],
        ['pods/status', 'pods/*'],
        ['*/status', 'pods/status'],
        ['pods/status', '*/status'],
        ['*/scale', '*/*'],
        ['pods/status/x'],
        ['Pods'],
        ['pods', 'pods'],
        ['deployments/scale'],
        ['*/status'],
      ],
      (resources) => edge(`resources: ${JSON.stringify(resources)}`, setRule({ resources })),
    ),
    ...each([[], ['*'], ['*', 'CREATE'], ['create'], ['CREATE', 'CREATE'], ['PATCH'], ['CREATE', 'UPDATE', 'DELETE', 'CONNECT']], (operations) =>
      edge(`operations: ${JSON.stringify(operations)}`, setRule({ operations })),
    ),
    ...each(['Cluster', 'Namespaced', '*', 'cluster', ''], (scope) => edge(`scope: ${JSON.stringify(scope)}`, setRule({ scope }))),

    ...each(['Fail', 'Ignore', 'fail', ''], (failurePolicy) => edge(`failurePolicy: ${JSON.stringify(failurePolicy)}`, set({ failurePolicy }))),
    ...each(['Exact', 'Equivalent', 'exact', ''], (matchPolicy) => edge(`matchPolicy: ${JSON.stringify(matchPolicy)}`, set({ matchPolicy }))),
    ...each(['None', 'NoneOnDryRun', 'Some', 'Unknown', 'none'], (sideEffects) => edge(`sideEffects: ${JSON.stringify(sideEffects)}`, set({ sideEffects }))),
    ...each([0, 1, 10, 30, 31, -1, 1.5, '5', 2147483648], (timeoutSeconds) => edge(`timeoutSeconds: ${JSON.stringify(timeoutSeconds)}`, set({ timeoutSeconds }))),
    ...each(['Never', 'IfNeeded', 'Always', ''], (reinvocationPolicy) => edge(`reinvocationPolicy: ${JSON.stringify(reinvocationPolicy)}`, set({ reinvocationPolicy }), true)),
    edge('reinvocationPolicy on a validating webhook', set({ reinvocationPolicy: 'Never' })),
    ...each([['v1'], ['v1beta1'], ['v1', 'v1beta1'], [], ['v2'], ['v1', 'v2'], ['v1', 'v1'], ['V1'], ['v1', 'V2']], (versions) =>
      edge(`admissionReviewVersions: ${JSON.stringify(versions)}`, set({ admissionReviewVersions: versions })),
    ),

    ...(['namespaceSelector', 'objectSelector'] as const).flatMap((selector) => [
      edge(`${selector}: {}`, set({ [selector]: {} })),
      edge(`${selector}: empty matchLabels and matchExpressions`, set({ [selector]: { matchLabels: {}, matchExpressions: [] } })),
      ...LABEL_KEYS.map(([label, key]) => edge(`${selector}: matchLabels key ${label}`, set({ [selector]: { matchLabels: { [key]: 'v' } } }))),
      ...LABEL_VALUES.map(([label, value]) => edge(`${selector}: matchLabels value ${label}`, set({ [selector]: { matchLabels: { k: value } } }))),
      ...LABEL_KEYS.slice(0, 5).map(([label, key]) => edge(`${selector}: matchExpressions key ${label}`, set({ [selector]: { matchExpressions: [{ key, operator: 'Exists' }] } }))),
      ...LABEL_VALUES.map(([label, value]) => edge(`${selector}: In value ${label}`, set({ [selector]: { matchExpressions: [{ key: 'k', operator: 'In', values: [value] }] } }))),
      ...each(
        [
          { operator: 'In', values: ['a', 'a'] },
          { operator: 'NotIn', values: ['a'] },
          { operator: 'In', values: [] },
          { operator: 'In' },
          { operator: 'Exists' },
          { operator: 'DoesNotExist' },
          { operator: 'Exists', values: ['a'] },
          { operator: 'Exists', values: [] },
          { operator: 'in', values: ['a'] },
          { operator: 'Gt', values: ['1'] },
        ],
        (requirement) => edge(`${selector}: matchExpressions ${JSON.stringify(requirement)}`, set({ [selector]: { matchExpressions: [{ key: 'k', ...requirement }] } })),
      ),
    ]),

    edge('matchConditions: empty list', set({ matchConditions: [] })),
    edge('matchConditions: 64', set({ matchConditions: conditions(64) })),
    edge('matchConditions: 65', set({ matchConditions: conditions(65) })),
    edge('matchConditions: duplicate names', set({ matchConditions: [condition('true', 'x'), condition('false', 'x')] })),
    ...each(
      [
        ['empty', ''],
        ['63 characters', a(63)],
        ['64 characters', a(64)],
        ['prefixed', 'example.com/x'],
        ['prefix of 254', `${subdomain(254)}/x`],
        ['mixed', 'A_b.c'],
        ['space', 'a b'],
        ['two "/"', 'a/b/c'],
      ] as const,
      ([label, name]) => edge(`matchConditions: name ${label}`, set({ matchConditions: [condition('true', name)] })),
    ),
    ...each(['', '   '], (expression) => edge(`matchConditions: expression ${JSON.stringify(expression)}`, set({ matchConditions: [condition(expression)] }))),
    ...CEL_EXPRESSIONS.map((expression) => edge(`CEL: ${expression.length > 70 ? `${expression.slice(0, 67)}...` : expression}`, set({ matchConditions: [condition(expression)] }))),

    edge('unknown option', set({ timeout: 5 })),
    edge('rbac only', set({ rbac: [{ groups: ['shaper.io'], resources: ['profiles'], verbs: ['get', 'list'] }] })),
  ];
}

export function edgeCases(): Case[] {
  return edges().map((e, i) => {
    const id = `e${String(i).padStart(3, '0')}`;
    const base: Options = { path: `/${e.mutating ? 'mutate' : 'validate'}-${id}`, mutating: e.mutating ?? false, rules: [RULE] };
    const edited = e.edit(base);
    return { id, label: e.label, webhooks: withConfiguration(id, Array.isArray(edited) ? edited : [edited]) };
  });
}

function withConfiguration(id: string, webhooks: readonly Options[]): Options[] {
  return webhooks.map((w) => ('configuration' in w ? w : { ...w, configuration: `case-${id}` }));
}

/** Valid values, then values the API server refuses or the generator is stricter on. */
const POOLS: Record<string, { valid: readonly unknown[]; invalid: readonly unknown[] }> = {
  failurePolicy: { valid: ['Fail', 'Ignore'], invalid: ['fail', ''] },
  matchPolicy: { valid: ['Exact', 'Equivalent'], invalid: ['exact'] },
  sideEffects: { valid: ['None', 'NoneOnDryRun'], invalid: ['Some', 'Unknown'] },
  timeoutSeconds: { valid: [1, 5, 10, 30], invalid: [0, 31, -1, 2.5] },
  reinvocationPolicy: { valid: ['Never', 'IfNeeded'], invalid: ['Always'] },
  admissionReviewVersions: { valid: [['v1'], ['v1beta1'], ['v1', 'v1beta1'], ['v1beta1', 'v1']], invalid: [[], ['v2'], ['v1', 'v1'], ['v1', 'v3']] },
  groups: { valid: [[''], ['*'], ['apps'], ['shaper.io', 'apps'], ['batch']], invalid: [[], ['*', 'apps'], ['Apps'], ['apps', 'apps']] },
  versions: { valid: [['v1'], ['*'], ['v1', 'v1beta1'], ['v1alpha1']], invalid: [[], [''], ['V1'], ['*', 'v1']] },
  resources: {
    valid: [['pods'], ['*'], ['*/*'], ['pods', 'pods/status'], ['deployments/scale'], ['*/status'], ['*', 'pods/log'], ['profiles', 'assignments']],
    invalid: [[], [''], ['*', 'pods'], ['pods', '*'], ['*/*', 'pods'], ['pods/*', 'pods/log'], ['Pods'], ['a/b/c']],
  },
  operations: { valid: [['CREATE'], ['UPDATE', 'DELETE'], ['*'], ['CONNECT'], ['CREATE', 'UPDATE', 'DELETE']], invalid: [[], ['*', 'CREATE'], ['create'], ['CREATE', 'CREATE']] },
  scope: { valid: ['Cluster', 'Namespaced', '*'], invalid: ['namespaced'] },
  labelKey: { valid: ['team', 'shaper.io/tier', 'a_b.c', a(63), `${subdomain(100)}/x`], invalid: ['', a(64), 'a/b/c', 'Bad.com/x', '_x'] },
  labelValue: { valid: ['', 'a', 'gold', 'a_b.c', a(63)], invalid: [a(64), '-a', 'a b'] },
  operator: { valid: ['In', 'NotIn', 'Exists', 'DoesNotExist'], invalid: ['in', 'Gt'] },
  conditionName: { valid: ['c', 'example.com/c', 'A_b.c', a(63)], invalid: ['', a(64), 'a b'] },
};

export function randomCases(count = RANDOM_CASES, seed = RANDOM_SEED): Case[] {
  const next = seededRandom(seed);
  const chance = (p: number) => next() < p;
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const value = (pool: string, invalidChance = 0.08): unknown => {
    const { valid, invalid } = POOLS[pool]!;
    return structuredClone(chance(invalidChance) ? pick(invalid) : pick(valid));
  };
  const selector = (): Options => {
    const result: Options = {};
    if (chance(0.6)) result.matchLabels = Object.fromEntries(Array.from({ length: 1 + Math.floor(next() * 3) }, () => [value('labelKey'), value('labelValue')]));
    if (chance(0.6)) {
      result.matchExpressions = Array.from({ length: 1 + Math.floor(next() * 2) }, () => {
        const operator = value('operator', 0.05) as string;
        const needsValues = operator === 'In' || operator === 'NotIn';
        return {
          key: value('labelKey'),
          operator,
          ...((needsValues ? !chance(0.05) : chance(0.05)) && { values: Array.from({ length: 1 + Math.floor(next() * 3) }, () => value('labelValue')) }),
        };
      });
    }
    return result;
  };
  const rule = (): Options => ({
    groups: value('groups'),
    versions: value('versions'),
    resources: value('resources'),
    operations: value('operations'),
    ...(chance(0.5) && { scope: value('scope') }),
  });
  const webhook = (id: string, index: number, paths: string[]): Options => {
    const mutating = chance(0.5);
    const prefix = mutating ? '/mutate-' : '/validate-';
    let path = `${prefix}${id}-${index}${chance(0.2) ? `/${pick(['v1', 'x.y', a(63), subdomain(120)])}` : ''}`;
    if (chance(0.08)) path = pick([`${prefix}${id}/`, `${prefix}${id}//x`, `${prefix}${id}_x`, `/hook-${id}`, `${mutating ? '/validate-' : '/mutate-'}${id}`]);
    if (paths.length > 0 && chance(0.1)) path = pick(paths);
    paths.push(path);
    const options: Options = { path, mutating, rules: Array.from({ length: chance(0.03) ? 0 : 1 + Math.floor(next() * 2) }, rule) };
    if (chance(0.4)) options.name = chance(0.1) ? pick(['dup.shaper.io', 'a.b', 'Upper.shaper.io']) : `${id}-${index}.hooks.shaper.io`;
    for (const field of ['failurePolicy', 'matchPolicy', 'sideEffects', 'timeoutSeconds', 'admissionReviewVersions']) {
      if (chance(0.4)) options[field] = value(field);
    }
    if (chance(mutating ? 0.5 : 0.03)) options.reinvocationPolicy = value('reinvocationPolicy');
    if (chance(0.35)) options.namespaceSelector = selector();
    if (chance(0.35)) options.objectSelector = selector();
    if (chance(0.3)) {
      options.matchConditions = Array.from({ length: chance(0.05) ? 65 : 1 + Math.floor(next() * 3) }, (_, i) => ({
        name: chance(0.1) ? value('conditionName', 0.5) : `c${i}`,
        expression: pick(CEL_EXPRESSIONS),
      }));
    }
    return options;
  };
  return Array.from({ length: count }, (_, i) => {
    const id = `r${String(i).padStart(3, '0')}`;
    const paths: string[] = [];
    const webhooks = Array.from({ length: chance(0.15) ? 2 : 1 }, (_, k) => webhook(id, k, paths));
    return { id, label: 'random combination', webhooks: withConfiguration(id, webhooks) };
  });
}

export function corpus(): Case[] {
  return [...edgeCases(), ...randomCases()];
}
