/** The CEL engine of this package's build, loaded once per process on first use (runtime/cel/engine-loader.ts). */
import { loadCelEngine, type CelEngineCall } from 'shaper-gen/internal/generator';
import { engineDirectory } from './locate.js';

export function engine(): CelEngineCall {
  return loadCelEngine(engineDirectory());
}
