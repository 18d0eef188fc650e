import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The checkout: support/ is one of its top-level folders. */
export const REPO_ROOT = path.resolve(here, '..');
