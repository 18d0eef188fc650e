/** shaper-gen's version, from its own package.json (a self-reference: the same from the sources and the build). */
import { createRequire } from 'node:module';

export const SHAPER_GEN_VERSION = (createRequire(import.meta.url)('shaper-gen/package.json') as { version: string }).version;
