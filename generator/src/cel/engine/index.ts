/** The API server's own CEL (k8s.io/apiserver, cel-go) compiled to WebAssembly: compile, evaluate, cost, CRD validation. */
export * from './contracts.js';
export { CelEngineError, compile, engineVersion, estimateCost, evaluate, validateCrd, validateCustomResource } from './calls.js';
export { CelEngineMissing } from './locate.js';
