/** The API server's own CEL (k8s.io/apiserver, cel-go) compiled to WebAssembly: compile, evaluate, cost, CRD validation. */
export * from './contracts.js';
export {
  admit,
  CelEngineError,
  clientWarnings,
  compile,
  crdRuleCosts,
  engineVersion,
  estimateCost,
  estimateTyped,
  evaluate,
  setApiSchemas,
  validateCrd,
  validateCustomResource,
} from './calls.js';
export { CelEngineMissing } from './locate.js';
