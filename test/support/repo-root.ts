import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The checkout, from these sources (test/support) or from their build (dist/test/support, for benchmarks that use kindEnv). */
export const REPO_ROOT = path.resolve(here, here.split(path.sep).includes('dist') ? '../../..' : '../..');
