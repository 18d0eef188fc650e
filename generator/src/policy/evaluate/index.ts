/**
 * `@shaper-gen/generator/policy`: local evaluation of policies, for
 * `shaper-gen/testing`'s runPolicy, with the API server's own CEL evaluator
 * (the CEL engine, src/cel/engine/).
 */
import type { PolicyEvaluator } from 'shaper-gen/internal/generator';
import { evaluateMutatingPolicy } from './mutating.js';
import { evaluateValidatingPolicy } from './validating.js';
import { admitChain } from './admit.js';

export { evaluateValidatingPolicy, type EvaluationInput, type PolicyRequest, type PolicyResult, type PolicyStatus } from './validating.js';
export { evaluateMutatingPolicy, SchemaNotDeclared, type MutationInput, type MutationResult } from './mutating.js';
export { AuthorizerNotDeclared } from './runner.js';
export { admitChain, sourceObjects, type ChainInput, type PolicySource } from './admit.js';
export type { AuthorizerRule } from '../../cel/engine/index.js';

/** What runPolicy loads: checked against the runtime's contract. */
export default { evaluateValidatingPolicy, evaluateMutatingPolicy, admitChain } satisfies PolicyEvaluator;
