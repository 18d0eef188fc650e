import { describe, expect, it } from 'vitest';
import { defaultWebhookName, resolveWebhookOptions } from '../../../../runtime/webhook/options/resolve.js';
import type { ResolvedWebhook } from '../../../../runtime/webhook/options/types.js';
import { checkWebhookSet } from '../../../../runtime/webhook/options/webhook-set.js';
import { formatProblemPath as formatOptionPath } from '../../../../runtime/problems.js';

const rule = { groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] };
const validating = { path: '/validate-profile', mutating: false, rules: [rule] };

const rfc1123 = (path: string, index: number, segment: string) =>
  `path: path "${path}": segment[${index}] "${segment}" must be a lowercase RFC 1123 subdomain (letters, digits, "-" and ".", beginning and ending with a letter or digit), as the API server requires of every path segment`;

function problemsOf(options: unknown): string[] {
  return resolveWebhookOptions(options).problems.map((p) => `${formatOptionPath(p.path)}: ${p.message}`);
}

function resolved(options: unknown): ResolvedWebhook {
  const { webhook, problems } = resolveWebhookOptions(options);
  expect(problems).toEqual([]);
  return webhook!;
}

describe('defaults', () => {
  it('applies the Kubernetes defaults to a minimal validating webhook', () => {
    expect(resolved(validating)).toEqual({
      path: '/validate-profile',
      mutating: false,
      name: 'validate-profile.shaper.io',
      configuration: undefined,
      rules: [{ ...rule, scope: '*' }],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      timeoutSeconds: 10,
      matchPolicy: 'Equivalent',
      reinvocationPolicy: undefined,
      admissionReviewVersions: ['v1'],
      namespaceSelector: undefined,
      objectSelector: undefined,
      matchConditions: undefined,
      rbac: [],
      cache: [],
    });
  });

  it('defaults reinvocationPolicy to Never for mutating webhooks only', () => {
    expect(resolved({ ...validating, path: '/mutate-profile', mutating: true }).reinvocationPolicy).toBe('Never');
  });

  it('derives a three-segment name from the path', () => {
    expect(defaultWebhookName('/validate-shaper-io-v1-profile')).toBe('validate-shaper-io-v1-profile.shaper-gen.io');
    expect(defaultWebhookName('/mutate-a/b.c')).toBe('mutate-a-b-c.shaper-gen.io');
  });

  it("takes the domain from the first rule group that is one (the user's own), else shaper-gen.io", () => {
    expect(defaultWebhookName('/validate-profile', [{ groups: [''] }, { groups: ['apps', 'shaper.io', 'example.com'] }])).toBe('validate-profile.shaper.io');
    expect(defaultWebhookName('/validate-pod', [{ groups: ['', 'apps', '*'] }])).toBe('validate-pod.shaper-gen.io');
    expect(resolved(validating).name).toBe('validate-profile.shaper.io');
  });

  it('keeps every explicit option', () => {
    const options = {
      path: '/mutate-profile',
      mutating: true,
      name: 'profile.defaults.shaper.io',
      configuration: 'profiles',
      rules: [{ groups: [''], versions: ['*'], resources: ['pods', 'pods/status'], operations: ['*'], scope: 'Namespaced' }],
      failurePolicy: 'Ignore',
      sideEffects: 'NoneOnDryRun',
      timeoutSeconds: 30,
      matchPolicy: 'Exact',
      reinvocationPolicy: 'IfNeeded',
      admissionReviewVersions: ['v1', 'v1beta1'],
      namespaceSelector: { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
      objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
      matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      rbac: [{ groups: [''], resources: ['namespaces'], verbs: ['get'] }],
      cache: [{ group: '', version: 'v1', resource: 'namespaces' }],
    };
    expect(resolved(options)).toEqual({ ...options, rules: options.rules });
  });
});

describe('validation errors', () => {
  it.each<[string, unknown, string[]]>([
    ['non-object options', 'x', [': @Webhook expects an options object']],
    ['missing required options', {}, ['path: option "path" is required', 'mutating: option "mutating" is required', 'rules: option "rules" is required']],
    ['unknown option', { ...validating, verbs: ['create'] }, [expect.stringMatching(/^verbs: unknown option "verbs"; known options: path, mutating, name/)]],
    ['mistyped option', { ...validating, timeoutSecond: 5 }, [expect.stringMatching(/^timeoutSecond: unknown option "timeoutSecond"; did you mean "timeoutSeconds"\? known options: path, /)]],
    [
      'misspelt required option: one message, not also "path is required"',
      { ...validating, path: undefined, paht: '/validate-profile' },
      [expect.stringMatching(/^paht: unknown option "paht"; did you mean "path"\? known options: /)],
    ],
    [
      'rule keys as the API spells them: one line each, naming the name here',
      { ...validating, rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }] },
      [
        'rules[0].apiGroups: write "groups", not "apiGroups": "apiGroups" is the Kubernetes API\'s name, "groups" shaper-gen\'s',
        'rules[0].apiVersions: write "versions", not "apiVersions": "apiVersions" is the Kubernetes API\'s name, "versions" shaper-gen\'s',
      ],
    ],
    [
      'misspelt rule key: one message',
      { ...validating, rules: [{ ...rule, resources: undefined, resouces: ['profiles'] }] },
      ['rules[0].resouces: unknown key "resouces" in rules[0]; did you mean "resources"? expected groups, versions, resources, operations, scope'],
    ],
    [
      'rbac rule with apiGroups',
      { ...validating, rbac: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }] },
      ['rbac[0].apiGroups: write "groups", not "apiGroups": "apiGroups" is the Kubernetes API\'s name, "groups" shaper-gen\'s'],
    ],
    ['path prefix vs mutating', { ...validating, mutating: true }, ['path: a mutating webhook\'s path must start with "/mutate-", got "/validate-profile"']],
    ['path prefix vs validating', { ...validating, path: '/mutate-x' }, ['path: a validating webhook\'s path must start with "/validate-", got "/mutate-x"']],
    ['path charset', { ...validating, path: '/validate-Profile!' }, [rfc1123('/validate-Profile!', 0, 'validate-Profile!')]],
    ['path segment with "_"', { ...validating, path: '/validate-foo_bar' }, [rfc1123('/validate-foo_bar', 0, 'validate-foo_bar')]],
    ['path with an empty segment', { ...validating, path: '/validate-a//b' }, ['path: path "/validate-a//b": segment[1] may not be empty (no "//")']],
    ['path segment starting with "-"', { ...validating, path: '/validate-c/-d' }, [rfc1123('/validate-c/-d', 1, '-d')]],
    ['path segment ending with "."', { ...validating, path: '/validate-c/d.' }, [rfc1123('/validate-c/d.', 1, 'd.')]],
    ['path ending with "/"', { ...validating, path: '/validate-c/' }, ['path: path "/validate-c/" must not end with "/"']],
    [
      'path segment over 253 characters',
      { ...validating, path: `/validate-${'a'.repeat(250)}` },
      [`path: path "/validate-${'a'.repeat(250)}": segment[0] is 259 characters; the API server allows at most 253 per segment`],
    ],
    [
      'default name over 253 characters',
      { ...validating, path: `/validate-${'a'.repeat(240)}` },
      [`path: the default webhook name "validate-${'a'.repeat(240)}.shaper.io" derived from this path is 259 characters, over the 253 the API server allows: set \`name\` or shorten the path`],
    ],
    ['resources under "x/*"', { ...validating, rules: [{ ...rule, resources: ['pods/*', 'pods/log'] }] }, ['rules[0].resources[1]: "pods/log" is already covered by "pods/*"']],
    ['resources under "*/x"', { ...validating, rules: [{ ...rule, resources: ['*/status', 'pods/status'] }] }, ['rules[0].resources[1]: "pods/status" is already covered by "*/status"']],
    ['path without prefix', { ...validating, path: '/profile' }, [expect.stringContaining('path: path "/profile" must be')]],
    ['mutating not boolean', { ...validating, mutating: 'yes' }, ['mutating: mutating must be true or false, got "yes"']],
    ['name with two segments', { ...validating, name: 'profile.io' }, [expect.stringContaining('name: name "profile.io" must be a lower-case DNS subdomain with at least three segments')]],
    ['name upper case', { ...validating, name: 'Profile.shaper.io' }, [expect.stringContaining('name: name "Profile.shaper.io"')]],
    ['configuration not a DNS label', { ...validating, configuration: 'a.b' }, ['configuration: configuration "a.b" must be a lower-case DNS label of at most 40 characters']],
    ['empty rules', { ...validating, rules: [] }, ['rules: rules must list at least one rule']],
    ['rules not an array', { ...validating, rules: rule }, ['rules: rules must be an array, got an object']],
    ['rule missing resources', { ...validating, rules: [{ ...rule, resources: undefined }] }, ['rules[0].resources: rule option "resources" is required']],
    ['rule unknown key', { ...validating, rules: [{ ...rule, verbs: [] }] }, ['rules[0].verbs: unknown key "verbs" in rules[0]; expected groups, versions, resources, operations, scope']],
    ['empty operations', { ...validating, rules: [{ ...rule, operations: [] }] }, ['rules[0].operations: operations must not be empty']],
    [
      'bad operation',
      { ...validating, rules: [{ ...rule, operations: ['CREATE', 'PATCH'] }] },
      ['rules[0].operations[1]: operations[1] must be one of "CREATE", "UPDATE", "DELETE", "CONNECT", "*", got "PATCH"'],
    ],
    ['star with others', { ...validating, rules: [{ ...rule, operations: ['*', 'CREATE'] }] }, ['rules[0].operations: "*" in operations must be the only entry']],
    ['duplicate operation', { ...validating, rules: [{ ...rule, operations: ['CREATE', 'CREATE'] }] }, ['rules[0].operations[1]: duplicate entry "CREATE"']],
    ['bad group', { ...validating, rules: [{ ...rule, groups: ['Shaper.IO'] }] }, ['rules[0].groups[0]: API group "Shaper.IO" must be "", "*" or a DNS subdomain']],
    ['bad version', { ...validating, rules: [{ ...rule, versions: ['v1/beta'] }] }, ['rules[0].versions[0]: API version "v1/beta" must be "*" or like "v1", "v1alpha1"']],
    [
      'bad resource',
      { ...validating, rules: [{ ...rule, resources: ['profiles/status/x'] }] },
      ['rules[0].resources[0]: resource "profiles/status/x" must be "<resource>" or "<resource>/<subresource>" (lower-case, "*" allowed)'],
    ],
    ['*/* with others', { ...validating, rules: [{ ...rule, resources: ['*/*', 'pods'] }] }, ['rules[0].resources: resources containing "*/*" must not list other resources']],
    [
      '* with plain resources',
      { ...validating, rules: [{ ...rule, resources: ['*', 'pods'] }] },
      ['rules[0].resources: resources containing "*" must not list other resources without a subresource'],
    ],
    ['bad scope', { ...validating, rules: [{ ...rule, scope: 'Global' }] }, ['rules[0].scope: scope must be one of "Cluster", "Namespaced", "*", got "Global"']],
    ['failurePolicy', { ...validating, failurePolicy: 'fail' }, ['failurePolicy: failurePolicy must be one of "Fail", "Ignore", got "fail"']],
    [
      'sideEffects Some',
      { ...validating, sideEffects: 'Some' },
      ['sideEffects: sideEffects "Some" is not allowed by admissionregistration.k8s.io/v1; use None, or NoneOnDryRun and honour request.dryRun'],
    ],
    ['sideEffects Unknown', { ...validating, sideEffects: 'Unknown' }, [expect.stringContaining('sideEffects "Unknown" is not allowed')]],
    ['sideEffects other', { ...validating, sideEffects: 'Maybe' }, ['sideEffects: sideEffects must be one of "None", "NoneOnDryRun", got "Maybe"']],
    ['timeout too low', { ...validating, timeoutSeconds: 0 }, ['timeoutSeconds: timeoutSeconds must be a whole number from 1 to 30, got number 0']],
    ['timeout too high', { ...validating, timeoutSeconds: 31 }, ['timeoutSeconds: timeoutSeconds must be a whole number from 1 to 30, got number 31']],
    ['timeout fraction', { ...validating, timeoutSeconds: 2.5 }, ['timeoutSeconds: timeoutSeconds must be a whole number from 1 to 30, got number 2.5']],
    ['matchPolicy', { ...validating, matchPolicy: 'Fuzzy' }, ['matchPolicy: matchPolicy must be one of "Exact", "Equivalent", got "Fuzzy"']],
    ['reinvocation on validating', { ...validating, reinvocationPolicy: 'IfNeeded' }, ['reinvocationPolicy: reinvocationPolicy applies to mutating webhooks only']],
    [
      'reinvocation value',
      { ...validating, path: '/mutate-p', mutating: true, reinvocationPolicy: 'Always' },
      ['reinvocationPolicy: reinvocationPolicy must be one of "Never", "IfNeeded", got "Always"'],
    ],
    ['review versions empty', { ...validating, admissionReviewVersions: [] }, ['admissionReviewVersions: admissionReviewVersions must list at least one version']],
    ['review version unknown', { ...validating, admissionReviewVersions: ['v2'] }, ['admissionReviewVersions[0]: admissionReviewVersions[0] must be one of "v1", "v1beta1", got "v2"']],
    [
      'selector operator',
      { ...validating, namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Has' }] } },
      ['namespaceSelector.matchExpressions[0].operator: operator must be one of "In", "NotIn", "Exists", "DoesNotExist", got "Has"'],
    ],
    [
      'In without values',
      { ...validating, objectSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } },
      ['objectSelector.matchExpressions[0].values: operator In needs a non-empty values list'],
    ],
    [
      'Exists with values',
      { ...validating, objectSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] } },
      ['objectSelector.matchExpressions[0].values: operator Exists must not have values'],
    ],
    ['bad label key', { ...validating, objectSelector: { matchLabels: { 'a b': 'x' } } }, ['objectSelector.matchLabels.a b: label key "a b" is not a valid qualified name']],
    [
      'bad label value',
      { ...validating, objectSelector: { matchLabels: { a: 'x y' } } },
      ['objectSelector.matchLabels.a: label value "x y" is not valid (at most 63 letters, digits, "-", "_", ".")'],
    ],
    ['selector unknown key', { ...validating, objectSelector: { labels: {} } }, ['objectSelector.labels: unknown key "labels" in objectSelector; expected matchLabels, matchExpressions']],
    [
      'too many matchConditions',
      { ...validating, matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) },
      ['matchConditions: at most 64 matchConditions are allowed, got 65'],
    ],
    [
      'duplicate matchCondition',
      {
        ...validating,
        matchConditions: [
          { name: 'a', expression: 'true' },
          { name: 'a', expression: 'false' },
        ],
      },
      ['matchConditions[1].name: duplicate matchCondition name "a"'],
    ],
    [
      'matchCondition name format',
      { ...validating, matchConditions: [{ name: 'not ok', expression: 'true' }] },
      [expect.stringContaining('matchConditions[0].name: matchCondition name "not ok" must be a qualified name')],
    ],
    ['empty expression', { ...validating, matchConditions: [{ name: 'a', expression: ' ' }] }, ['matchConditions[0].expression: matchCondition expression must not be empty']],
  ])('%s', (_title, options, expected) => {
    expect(problemsOf(options)).toEqual(expected);
  });

  it('reports every problem at once', () => {
    expect(problemsOf({ path: '/x', mutating: 1, rules: [], timeoutSeconds: 99 })).toHaveLength(4);
  });
});

describe('checkWebhookSet', () => {
  const a = resolved(validating);
  it('rejects duplicate paths', () => {
    expect(checkWebhookSet([a, { ...a, name: 'other.shaper.io' }])).toEqual([{ index: 1, problem: { path: ['path'], message: 'duplicate webhook path "/validate-profile"' } }]);
  });
  it('rejects duplicate names within a configuration, not across configurations', () => {
    const b = { ...a, path: '/validate-other' };
    expect(checkWebhookSet([a, b])).toEqual([{ index: 1, problem: { path: ['name'], message: 'duplicate webhook name "validate-profile.shaper.io" in the default configuration' } }]);
    expect(checkWebhookSet([a, { ...b, configuration: 'second' }])).toEqual([]);
  });
  it('says so when two paths give the same default name, at the path', () => {
    const dotted = resolved({ ...validating, path: '/validate-a.b' });
    const slashed = resolved({ ...validating, path: '/validate-a/b' });
    const dashed = resolved({ ...validating, path: '/validate-a-b' });
    expect(checkWebhookSet([dotted, slashed, dashed])).toEqual([
      {
        index: 1,
        problem: {
          path: ['path'],
          message: 'paths "/validate-a.b" and "/validate-a/b" give the same default webhook name "validate-a-b.shaper.io" in the default configuration: set `name` on one of them',
        },
      },
      {
        index: 2,
        problem: {
          path: ['path'],
          message: 'paths "/validate-a.b" and "/validate-a-b" give the same default webhook name "validate-a-b.shaper.io" in the default configuration: set `name` on one of them',
        },
      },
    ]);
  });
});
