/**
 * `@shaper-gen/generator/policy`: local evaluation of policies, for
 * `shaper-gen/testing`'s runPolicy. It lives beside the CEL declarations it
 * evaluates with, so that what the generator type-checks and what the tests
 * run are one environment.
 */
import type { PolicyEvaluator } from 'shaper-gen/internal/generator';
import { evaluateMutatingPolicy } from './mutating.js';
import { evaluateValidatingPolicy } from './validating.js';

export { evaluateValidatingPolicy, type EvaluationInput, type PolicyRequest, type PolicyResult, type PolicyStatus } from './validating.js';
export { evaluateMutatingPolicy, type MutationInput, type MutationResult } from './mutating.js';
export { NotEvaluableLocally } from '../../cel/runtime-library.js';

/** What runPolicy loads: checked against the runtime's contract. */
export default { evaluateValidatingPolicy, evaluateMutatingPolicy } satisfies PolicyEvaluator;
