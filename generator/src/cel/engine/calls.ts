/** The CEL engine's calls, typed; an engine failure (bad request, a recovered panic) is thrown. */
import type { CompileAnswer, CompileRequest, CrdAnswer, CustomResourceAnswer, CustomResourceRequest, EvaluateAnswer, EvaluateRequest, VersionAnswer } from './contracts.js';
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

export const compile = (request: CompileRequest) => call('compile', request) as CompileAnswer;
export const estimateCost = (request: CompileRequest) => call('estimateCost', request) as CompileAnswer;
export const evaluate = (request: EvaluateRequest) => call('evaluate', request) as EvaluateAnswer;
export const validateCrd = (crd: unknown) => call('validateCrd', { crd }) as CrdAnswer;
export const validateCustomResource = (request: CustomResourceRequest) => call('validateCustomResource', request) as CustomResourceAnswer;
export const engineVersion = () => call('version', {}) as VersionAnswer;
