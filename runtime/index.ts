/**
 * The public API of `shaper-gen`: a hand-picked list, pinned by
 * test/unit/runtime/public-api.test.ts, so that every change to it is deliberate.
 */
export { Webhook, webhookOf, type HandlerFor } from './webhook/decorator.js';
export type {
  AdmissionReviewVersion,
  FailurePolicy,
  LabelSelector,
  LabelSelectorRequirement,
  MatchCondition,
  MatchPolicy,
  Operation,
  ReinvocationPolicy,
  ResolvedRule,
  ResolvedWebhook,
  RuleOptions,
  Scope,
  SelectorOperator,
  SideEffects,
  WebhookOptions,
} from './webhook/options/types.js';
export { Conversion, conversionOf } from './conversion/decorator.js';
export type { ConversionOptions, Converter, SpokeConversion } from './conversion/types.js';
export { MutatingPolicy, mutatingPolicyOf, ValidatingPolicy, validatingPolicyOf } from './policy/decorator.js';
export type {
  AuditAnnotation,
  ParamKind,
  ParamRef,
  ParameterNotFoundAction,
  PolicyOptions,
  PolicyVariable,
  ResolvedPolicy,
  ResolvedValidatingPolicy,
  Validation,
  ValidatingPolicyOptions,
  ValidationAction,
  ValidationReason,
} from './policy/options/policy-types.js';
export type { MutatingPolicyOptions, Mutation, MutationExpression, PatchType, ResolvedMutatingPolicy } from './policy/options/mutating-policy-types.js';
export { labelSelectorProblems } from './options/label-selector.js';
export { ConfigError, formatProblemPath, type Problem, type ProblemPath, type SourceLocation } from './problems.js';
export type {
  AdmissionContext,
  AdmissionOperation,
  AdmissionRequestInfo,
  CacheReader,
  CustomDefaulter,
  CustomValidator,
  GroupVersionKind,
  GroupVersionResource,
  KubeClient,
  KubernetesObject,
  ObjectMeta,
  ReadOptions,
  UserInfo,
  Warnings,
  WebhookHandler,
} from './webhook/contract.js';
export type { RbacRule } from './webhook/rbac-options.js';
export { resourceKey, type CachedResource } from './cache/cached-resource.js';
export { AdmissionDenial, Denied, Forbidden, Invalid, assertValid, field, type FieldError, type CauseType } from './webhook/errors.js';
export type { AdmissionRequest, AdmissionResponse, AdmissionReview, ReviewApiVersion, Status, StatusCause } from './webhook/admission/review.js';
export type { ServerConfig } from './config/server-config.js';
