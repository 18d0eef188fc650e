/**
 * CEL in every place a validating policy holds it, judged twice: by
 * `shaper-gen manifests`' server-equivalent compile and by the API server
 * when a policy holding it is created (dry run). The two must agree.
 */
export type Place = 'validation' | 'messageExpression' | 'valueExpression' | 'matchCondition' | 'variable';

export interface ExpressionCase {
  readonly place: Place;
  readonly expression: string;
  /** A policy with paramKind (and paramRef) declares `params`. */
  readonly params?: boolean;
}

const anywhere = (expression: string): ExpressionCase[] => (['validation', 'messageExpression', 'valueExpression', 'matchCondition', 'variable'] as const).map((place) => ({ place, expression }));

export const EXPRESSION_CASES: readonly ExpressionCase[] = [
  ...anywhere('true'),
  ...anywhere("'text'"),
  ...anywhere('object.metadata.name'),
  ...anywhere("object.metadata.name == 'a'"),
  ...anywhere('string(object.metadata.name)'),
  ...anywhere('null'),
  ...anywhere("object.spec.replicas > 50 ? 'too many: ' + string(object.spec.replicas) : null"),
  ...anywhere("object.spec.replicas > 50 ? null : 'fine'"),
  ...anywhere('object.spec.replicas >'),
  ...anywhere('size(object.spec.containers) + 1'),
  ...anywhere("authorizer.group('apps').resource('deployments').check('create').allowed()"),
  ...anywhere("authorizer.requestResource.check('update').allowed()"),
  ...anywhere('params.maxReplicas > 1'),
  { place: 'validation', expression: 'params.maxReplicas > 1', params: true },
  { place: 'messageExpression', expression: "'max ' + string(params.maxReplicas)", params: true },
  ...anywhere('variables.undefinedVariable'),
  ...anywhere("namespaceObject.metadata.labels['env'] == 'prod'"),
  ...anywhere("request.userInfo.username.startsWith('system:')"),
  ...anywhere("object.metadata.name.matches('[')"),
  ...anywhere("quantity('1Gi').isGreaterThan(quantity('512Mi'))"),
  ...anywhere("url('https://example.com').getHost()"),
  ...anywhere("isURL('https://example.com')"),
  ...anywhere("'a'.unknownFunction()"),
  ...anywhere('1 + 1.0'),
  ...anywhere("object.metadata.labels.all(k, k.startsWith('a'))"),
  ...anywhere("object.metadata.labels.all(k, v, v != '')"),
  ...anywhere('[1, 2].map(x, x * 2).sum() > 2'),
  ...anywhere('sets.contains([1], [1])'),
  ...anywhere("object.?metadata.?labels['x'].orValue('none')"),
  ...anywhere("duration('1x') > duration('1s')"),
  ...anywhere("'%s-%d'.format(['a', 1])"),
  ...anywhere("true ? object.metadata.name : 'x'"),
  ...anywhere("false ? 'x' : object.metadata.name"),
  ...anywhere("object.metadata.name + ''"),
  ...anywhere("[object.metadata.name, 'x'][1]"),
  ...anywhere("{'a': object.metadata.name, 'b': 'x'}['b']"),
  ...anywhere("optional.of(object.metadata.name).orValue('x')"),
  ...anywhere("optional.of('x').orValue(object.metadata.name)"),
  ...anywhere('object.?metadata.name.orValue(1)'),
  ...anywhere("object.metadata.?name.or(optional.of('x')).value()"),
];
