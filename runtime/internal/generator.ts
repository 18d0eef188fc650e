/**
 * What @shaper-gen/generator uses of the runtime (`shaper-gen/internal/generator`):
 * the option schema and its checks, problem reporting, the project layout, the
 * CLI's flags and caches, the policy evaluator's contract, so that the
 * generator checks decorators by the rules `serve` applies and declares no
 * second version of them. Not a public API: the two packages are released
 * together, and this list changes with them.
 */
export { handlerShapeProblem } from '../webhook/contract.js';
export { countOf, listCounts } from '../count-words.js';
export { didYouMean } from '../did-you-mean.js';
export type { DocumentOf, Schema } from '../config/schema.js';
export { readYamlConfig } from '../config/yaml-config.js';
export { digestInputs, writeInputsRecord, type InputDigests } from '../handlers-inputs.js';
export { resolveWebhookOptions } from '../webhook/options/resolve.js';
export { resolveMutatingPolicyOptions, resolveValidatingPolicyOptions } from '../policy/options/policy-resolve.js';
export type { ResolvedPolicy, ResolvedValidatingPolicy } from '../policy/options/policy-types.js';
export type { Mutation, PatchType, ResolvedMutatingPolicy } from '../policy/options/mutating-policy-types.js';
export { PATCH_FIELD } from '../policy/options/mutating-policy-fields.js';
export { mutatingPolicyOf, validatingPolicyOf } from '../policy/decorator.js';
export { resolveConversionOptions } from '../conversion/options.js';
export { CONVERSION_REVIEW_API_VERSIONS } from '../conversion/review.js';
export type { ResolvedConversion } from '../conversion/types.js';
export type { LabelSelector, ResolvedWebhook } from '../webhook/options/types.js';
export { checkWebhookSet } from '../webhook/options/webhook-set.js';
export { isDnsSubdomain } from '../options/kubernetes-names.js';
export { ConfigError, formatProblem, formatProblemPath, type LocatedProblem, type Problem, type ProblemPath } from '../problems.js';
export { DEFAULT_COMPILED_HANDLERS, DEFAULT_EXCLUDE, DEFAULT_SOURCES, defaultHandlersModule } from '../project-layout.js';
export { mergeRbacRules, rbacRulesOf } from '../webhook/rbac-options.js';
export { cacheDirectory } from '../cli/cache-directory.js';
export { CLI_PATH } from '../cli/cli-path.js';
export type { CreateApiFlags, CreateConversionFlags, CreateTypesFlags, DevFlags, GeneratorCommands, InitFlags, ManifestsFlags } from '../cli/generator-contract.js';
export { appliedV8Flags } from '../cli/v8-flags.js';
export type { PolicyEvaluator } from '../policy/evaluator-contract.js';
export type { AdmittedObjects, CrdSource, CustomResourceInput, CustomResourceResult, CustomResourceValidator } from '../testing/custom-resource-contract.js';
export { ENGINE_FILE, holdsCelEngine, loadCelEngine, type CelEngineCall } from '../cel/engine-loader.js';
export type { AdmissionInput, AdmitAnswer, AdmitRequest, AdmitStep, AuthorizerCheck, AuthorizerRule } from '../cel/engine-contract.js';
export { servedPolicyReads } from '../policy/served/policy-handler.js';
export { servedPolicyPath, servedPolicyWebhookName } from '../policy/served/webhook-name.js';
export { ACCESS_REVIEW_RULE, callsAuthorizer } from '../policy/served/access-reviews.js';
