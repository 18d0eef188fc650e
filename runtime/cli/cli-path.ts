/** The `shaper-gen` executable, for commands that start it again (`dev` runs `serve --dev`): the package's own "bin". */
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const manifest = require.resolve('shaper-gen/package.json');

export const CLI_PATH = path.join(path.dirname(manifest), (require(manifest) as { bin: Record<string, string> }).bin['shaper-gen']!);
