/**
 * Policies beside the sample's, each exercising what the sample does not:
 * expression errors under both failure policies, Warn and Audit, matchConditions
 * (false and erroring), namespace and object selectors, exclusions, message
 * fallbacks, audit annotation errors, DELETE, and library functions. Each is
 * confined to its own namespace (the FIXTURE_LABEL selector), so that a
 * request meets at most one of them.
 */
import { ValidatingPolicy } from 'shaper-gen';

export const FIXTURE_LABEL = 'policy-test.shaper-gen.io/fixture';
const CONFIGMAPS = { groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] } as const;

@ValidatingPolicy({
  name: 'data-size.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'data-size' } },
  variables: [{ name: 'keys', expression: 'size(object.data)' }],
  validations: [{ expression: 'variables.keys <= 3', messageExpression: "'at most 3 keys, got ' + string(variables.keys) + ' from ' + request.userInfo.username", reason: 'Forbidden' }],
})
export class DataSizeFail {}

@ValidatingPolicy({
  name: 'data-size-ignore.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'data-size-ignore' } },
  failurePolicy: 'Ignore',
  validations: [{ expression: 'size(object.data) <= 3', message: 'at most 3 keys' }],
})
export class DataSizeIgnore {}

@ValidatingPolicy({
  name: 'no-password.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'no-password' } },
  validations: [
    { expression: "!has(object.data) || !('password' in object.data)", message: 'a ConfigMap must not hold a password' },
    {
      expression: "!has(object.data) || object.data.all(k, k.matches('^[a-z.-]+$'))",
      messageExpression: "'keys must be lower-case: ' + object.data.filter(k, !k.matches('^[a-z.-]+$')).join(', ')",
    },
  ],
  validationActions: ['Warn', 'Audit'],
})
export class NoPasswordWarn {}

@ValidatingPolicy({
  name: 'conditions.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'conditions' } },
  matchConditions: [
    { name: 'named-mc', expression: "object.metadata.name.startsWith('mc-')" },
    { name: 'mode-set', expression: "object.data.mode != 'skip'" },
  ],
  validations: [{ expression: "object.data.mode in ['a', 'b']", message: 'mode must be a or b' }],
})
export class Conditions {}

@ValidatingPolicy({
  name: 'owner.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'owner' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
  objectSelector: { matchExpressions: [{ key: 'owner-exempt', operator: 'DoesNotExist' }] },
  validations: [{ expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels", message: 'production ConfigMaps need an owner label' }],
})
export class OwnerInProd {}

@ValidatingPolicy({
  name: 'messages.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'messages' } },
  validations: [
    { expression: "object.data.?a.orValue('') != 'x'", messageExpression: 'string(object.data.nope)', message: 'a must not be x' },
    { expression: "object.data.?b.orValue('') != 'x'", messageExpression: "'   '" },
    { expression: "object.data.?c.orValue('') != 'x'", messageExpression: "'c is ' + object.data.c" },
  ],
  auditAnnotations: [{ key: 'first-key', valueExpression: "string(object.data.?first.orValue(''))" }],
})
export class Messages {}

@ValidatingPolicy({
  name: 'annotation-error.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'annotation-error' } },
  validations: [{ expression: 'true' }],
  auditAnnotations: [{ key: 'kind', valueExpression: 'string(object.data.kind)' }],
})
export class AnnotationError {}

@ValidatingPolicy({
  name: 'protected.policy-test.shaper-gen.io',
  rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['DELETE', 'UPDATE'] }],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'protected' } },
  excludeResourceRules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['UPDATE'] }],
  validations: [{ expression: "oldObject.metadata.?labels['protected'].orValue('') != 'true'", message: 'protected ConfigMaps cannot be deleted' }],
})
export class Protected {}

@ValidatingPolicy({
  name: 'functions.policy-test.shaper-gen.io',
  rules: [CONFIGMAPS],
  namespaceSelector: { matchLabels: { 'policy-test.shaper-gen.io/fixture': 'functions' } },
  variables: [
    { name: 'values', expression: 'has(object.data) ? object.data.map(k, object.data[k]) : []' },
    { name: 'ports', expression: "has(object.data) && 'ports' in object.data ? object.data.ports.split(',').map(p, int(p.trim())) : []" },
  ],
  validations: [
    { expression: 'variables.ports.all(p, p > 0 && p < 65536)', messageExpression: "'ports out of range: ' + variables.ports.filter(p, p <= 0 || p >= 65536).map(p, string(p)).join(',')" },
    { expression: '!has(object.data.host) || object.data.host.lowerAscii() == object.data.host', message: 'host must be lower-case' },
    { expression: "!has(object.data.url) || object.data.url.find('^https://[a-z.]+') != ''", message: 'url must be https' },
    { expression: "!has(object.data.tags) || sets.contains(['a', 'b', 'c'], object.data.tags.split(','))", message: 'tags must be among a, b, c' },
    { expression: "!has(object.data.name) || object.data.name.replace('_', '-').charAt(0) != '-'", message: 'name must not start with - or _' },
    { expression: 'variables.values.size() == variables.values.distinct().size()', message: 'values must be distinct' },
    { expression: '!has(object.data.ports) || variables.ports.isSorted()', message: 'ports must be sorted' },
  ],
})
export class Functions {}

export const FIXTURES = [DataSizeFail, DataSizeIgnore, NoPasswordWarn, Conditions, OwnerInProd, Messages, AnnotationError, Protected, Functions];
/** Namespaces the fixtures are confined to, with their labels (owner-prod and owner-dev share the owner fixture). */
export const FIXTURE_NAMESPACES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'data-size': { [FIXTURE_LABEL]: 'data-size' },
  'data-size-ignore': { [FIXTURE_LABEL]: 'data-size-ignore' },
  'no-password': { [FIXTURE_LABEL]: 'no-password' },
  conditions: { [FIXTURE_LABEL]: 'conditions' },
  'owner-prod': { [FIXTURE_LABEL]: 'owner', env: 'prod' },
  'owner-dev': { [FIXTURE_LABEL]: 'owner', env: 'dev' },
  messages: { [FIXTURE_LABEL]: 'messages' },
  'annotation-error': { [FIXTURE_LABEL]: 'annotation-error' },
  protected: { [FIXTURE_LABEL]: 'protected' },
  functions: { [FIXTURE_LABEL]: 'functions' },
};
