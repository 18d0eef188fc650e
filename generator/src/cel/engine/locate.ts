/**
 * Where the CEL engine's build is: SHAPER_GEN_CEL_ENGINE (a directory), the
 * package's dist/cel-engine/ (what is published), or cel-engine/out/ (what
 * scripts/build-cel-engine.sh links in this repository).
 */
import path from 'node:path';
import { ENGINE_FILE, holdsCelEngine } from 'shaper-gen/internal/generator';
import { packageRoot } from '../../package-root.js';

/** The engine's build is missing: the one-line error says how to make it. */
export class CelEngineMissing extends Error {
  override name = 'CelEngineMissing';
}

export function engineDirectory(): string {
  const override = process.env.SHAPER_GEN_CEL_ENGINE;
  const candidates = override ? [override] : [path.join(packageRoot(), 'dist', 'cel-engine'), path.join(packageRoot(), 'cel-engine', 'out')];
  const found = candidates.find(holdsCelEngine);
  if (found) return found;
  throw new CelEngineMissing(`the CEL engine (${ENGINE_FILE}) is not built: looked in ${candidates.join(', ')}; run scripts/build-cel-engine.sh (or npm run build) in the shaper-gen repository`);
}
