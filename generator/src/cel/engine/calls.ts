/** The CEL engine's calls, typed; an engine failure (bad request, a recovered panic) is thrown. */
import type {
  AdmitAnswer,
  AdmitRequest,
  ApiSchemasRequest,
  CompileAnswer,
  CompileRequest,
  CrdAnswer,
  CustomResourceAnswer,
  CustomResourceRequest,
  EstimateTypedRequest,
  EvaluateAnswer,
  EvaluateRequest,
  RuleCost,
  VersionAnswer,
} from './contracts.js';
import { cachedAnswer } from './answer-cache.js';
import { engine } from './load.js';

/** The engine could not answer (not an expression's error: those are in the answer). */
export class CelEngineError extends Error {
  override name = 'CelEngineError';
}

/** The answer's JSON, parsed; an error object thrown. */
function call(method: string, request: unknown): unknown {
  const answer = JSON.parse(engine()(method, JSON.stringify(request))) as unknown;
  if (typeof answer === 'object' && answer !== null && 'error' in answer && typeof answer.error === 'string') throw new CelEngineError(answer.error);
  return answer;
}

/** A call whose answer depends only on the request and the engine's build: answered from the cache when it can be. */
const pure = (method: string, request: unknown) => cachedAnswer(method, request, () => call(method, request));

export const compile = (request: CompileRequest) => pure('compile', request) as CompileAnswer;
export const estimateCost = (request: CompileRequest) => pure('estimateCost', request) as CompileAnswer;
export const estimateTyped = (request: EstimateTypedRequest) => pure('estimateTyped', request) as CompileAnswer;
export const evaluate = (request: EvaluateRequest) => call('evaluate', request) as EvaluateAnswer;
export const validateCrd = (crd: unknown) => pure('validateCrd', { crd }) as CrdAnswer;
/** The estimated cost of each rule of a CRD version's `openAPIV3Schema`. */
export const crdRuleCosts = (schema: unknown) => pure('crdRuleCosts', { schema }) as RuleCost[];
export const admit = (request: AdmitRequest) => call('admit', request) as AdmitAnswer;
export const setApiSchemas = (request: ApiSchemasRequest) => call('setApiSchemas', request);
export const validateCustomResource = (request: CustomResourceRequest) => call('validateCustomResource', request) as CustomResourceAnswer;
export const engineVersion = () => call('version', {}) as VersionAnswer;
/** A request's warnings as a client reads them from the API server's Warning headers (its recorder: duplicates and texts with control characters dropped, long lists truncated). */
export const clientWarnings = (warnings: readonly string[]) => (call('clientWarnings', { warnings }) as { warnings: string[] }).warnings;
