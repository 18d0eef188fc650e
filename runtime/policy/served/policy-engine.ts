/**
 * The CEL engine as `serve` uses it: found (config, $SHAPER_GEN_CEL_ENGINE,
 * ./cel-engine, or the generator package's build), loaded once with the
 * built-in kinds' schemas an ApplyConfiguration is merged by, and asked to
 * admit one request through the API server's own policy plugins.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AdmitAnswer, AdmitRequest, PolicySet } from '../../cel/engine-contract.js';
import { holdsCelEngine, loadCelEngine, type CelEngineCall } from '../../cel/engine-loader.js';
import { RegistrationError } from '../../server/registry.js';

export class PolicyEngineMissing extends RegistrationError {
  override name = 'PolicyEngineMissing';
}

export interface PolicyEngine {
  /** Decodes, defaults and compiles the policies once; admit requests then name the set by the id returned. */
  register(set: PolicySet): string;
  admit(request: AdmitRequest): AdmitAnswer;
}

/** Where the engine's build is; throws with what was tried when it is nowhere. */
export function locatePolicyEngine(configured: string): string {
  const candidates = configured ? [configured] : [process.env.SHAPER_GEN_CEL_ENGINE, path.resolve('cel-engine'), generatorBuild()].filter((dir): dir is string => !!dir);
  const found = candidates.find(holdsCelEngine);
  if (found) return found;
  throw new PolicyEngineMissing(
    `policies.served needs the CEL engine and none was found in ${candidates.join(', ')}: copy @shaper-gen/generator's dist/cel-engine into the image (the scaffold's Dockerfile does) or set policies.engineDir`,
  );
}

function generatorBuild(): string | undefined {
  try {
    return path.join(path.dirname(createRequire(import.meta.url).resolve('@shaper-gen/generator/package.json')), 'dist', 'cel-engine');
  } catch {
    return undefined;
  }
}

/** The engine in `directory`, with the built-in schemas from `apiSchemasFile` (default: kubernetes-schemas.json beside it), if that exists. */
export function startPolicyEngine(directory: string, apiSchemasFile: string): PolicyEngine {
  const call = loadCelEngine(directory);
  const schemas = apiSchemasFile || path.join(directory, 'kubernetes-schemas.json');
  if (existsSync(schemas)) {
    const { resources, definitions } = JSON.parse(readFileSync(schemas, 'utf8')) as { resources: unknown; definitions: unknown };
    ask(call, 'setApiSchemas', { resources, definitions });
  }
  return {
    register: (set) => (ask(call, 'registerPolicies', set) as { id: string }).id,
    admit: (request) => ask(call, 'admit', request) as AdmitAnswer,
  };
}

function ask(call: CelEngineCall, method: string, request: unknown): unknown {
  const answer = JSON.parse(call(method, JSON.stringify(request))) as unknown;
  if (typeof answer === 'object' && answer !== null && 'error' in answer && typeof answer.error === 'string') throw new Error(`CEL engine: ${answer.error}`);
  return answer;
}
