/** The `shaper-gen` executable, for commands that start it again (`dev` runs `serve --dev`). */
import { fileURLToPath } from 'node:url';

export const CLI_PATH = fileURLToPath(new URL('../../bin/shaper-gen.js', import.meta.url));
