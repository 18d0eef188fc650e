/**
 * Node's module compile cache (V8 code cache on disk) for the CLI's own
 * commands, in shaper-gen's cache directory. Best effort: an unwritable or read-only location, or
 * NODE_DISABLE_COMPILE_CACHE=1, only means no cache, never an error or a message.
 */
import module from 'node:module';
import path from 'node:path';
import { cacheDirectory } from '../generator/cache-directory.js';

/**
 * `serve` is left alone: it runs once per pod, from a production image whose
 * file system may be read-only, and its start-up is not worth a write there.
 */
export function enableGeneratorCompileCache(command: string | undefined): void {
  if (command === 'serve') return;
  try {
    const directory = cacheDirectory();
    // NODE_COMPILE_CACHE, when set, has already enabled Node's own cache; this call then changes nothing.
    if (directory) module.enableCompileCache(path.join(directory, 'compile-cache'));
  } catch {
    // No cache: the CLI works the same, only slower to start.
  }
}
