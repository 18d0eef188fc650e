// Part of `npm run build`: puts the CEL engine (built from cel-engine/ by
// scripts/build-cel-engine.sh, which this runs when it has not run yet) into
// dist/cel-engine/, so that the published package carries it, with the
// built-in kinds' schemas an ApplyConfiguration is merged by: the directory
// `serve` loads for the policies it enforces (runtime/policy/served/).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KUBERNETES_MINOR } from '../dist/kubernetes/api-schemas.js';

const built = fileURLToPath(new URL('../cel-engine/out/', import.meta.url));
const schemas = fileURLToPath(new URL(`../kubernetes-schemas/v${KUBERNETES_MINOR}.json`, import.meta.url));
const target = fileURLToPath(new URL('../dist/cel-engine/', import.meta.url));
if (!existsSync(`${built}cel-engine.wasm`)) {
  execFileSync('bash', [fileURLToPath(new URL('../../scripts/build-cel-engine.sh', import.meta.url))], { stdio: 'inherit' });
}
mkdirSync(target, { recursive: true });
for (const file of ['cel-engine.wasm', 'wasm_exec.js']) cpSync(`${built}${file}`, `${target}${file}`);
cpSync(schemas, `${target}kubernetes-schemas.json`);
