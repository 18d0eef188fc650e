/**
 * The public API of `shaper-gen` (runtime/index.ts), pinned: a change here is
 * a change to what users may import, and should be made on purpose.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from 'shaper-gen';

describe('shaper-gen public API', () => {
  it('exports exactly these values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'AdmissionDenial',
      'ConfigError',
      'Conversion',
      'Denied',
      'Forbidden',
      'Invalid',
      'MutatingPolicy',
      'ValidatingPolicy',
      'Webhook',
      'assertValid',
      'conversionOf',
      'field',
      'formatProblemPath',
      'labelSelectorProblems',
      'mutatingPolicyOf',
      'resourceKey',
      'validatingPolicyOf',
      'webhookOf',
    ]);
  });

  it('exports exactly these types', () => {
    const source = readFileSync(new URL('../../../runtime/index.ts', import.meta.url), 'utf8');
    const types = [...source.matchAll(/export type \{([^}]*)\}/g), ...source.matchAll(/export \{([^}]*)\}/g)]
      .flatMap((match) => match[1]!.split(','))
      .map((name) => name.trim())
      .filter((name) => name !== '')
      .map((name) => name.replace(/^type /, ''))
      .filter((name) => !(name in api))
      .sort();
    expect(types).toEqual([
      'AdmissionContext',
      'AdmissionOperation',
      'AdmissionRequest',
      'AdmissionRequestInfo',
      'AdmissionResponse',
      'AdmissionReview',
      'AdmissionReviewVersion',
      'AuditAnnotation',
      'CacheReader',
      'CachedResource',
      'CauseType',
      'ConversionOptions',
      'Converter',
      'CustomDefaulter',
      'CustomValidator',
      'FailurePolicy',
      'FieldError',
      'GroupVersionKind',
      'GroupVersionResource',
      'HandlerFor',
      'KubeClient',
      'KubernetesObject',
      'LabelSelector',
      'LabelSelectorRequirement',
      'MatchCondition',
      'MatchPolicy',
      'MutatingPolicyOptions',
      'Mutation',
      'MutationExpression',
      'ObjectMeta',
      'Operation',
      'ParamKind',
      'ParamRef',
      'ParameterNotFoundAction',
      'PatchType',
      'PolicyOptions',
      'PolicyVariable',
      'Problem',
      'ProblemPath',
      'RbacRule',
      'ReadOptions',
      'ReinvocationPolicy',
      'ResolvedMutatingPolicy',
      'ResolvedPolicy',
      'ResolvedRule',
      'ResolvedValidatingPolicy',
      'ResolvedWebhook',
      'ReviewApiVersion',
      'RuleOptions',
      'Scope',
      'SelectorOperator',
      'ServerConfig',
      'SideEffects',
      'SourceLocation',
      'SpokeConversion',
      'Status',
      'StatusCause',
      'UserInfo',
      'ValidatingPolicyOptions',
      'Validation',
      'ValidationAction',
      'ValidationReason',
      'Warnings',
      'WebhookHandler',
      'WebhookOptions',
    ]);
  });

  it('lists every export by name (no `export *`)', () => {
    const source = readFileSync(new URL('../../../runtime/index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/export \*/);
  });
});
