/**
 * Node's module compile cache (V8 code cache on disk) for the CLI's own
 * commands. Best effort: an unwritable or read-only location, or
 * NODE_DISABLE_COMPILE_CACHE=1, only means no cache, never an error or a message.
 */
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * `serve` is left alone: it runs once per pod, from a production image whose
 * file system may be read-only, and its start-up is not worth a write there.
 */
export function enableGeneratorCompileCache(command: string | undefined): void {
  if (command === 'serve') return;
  try {
    const directory = compileCacheDirectory();
    // NODE_COMPILE_CACHE, when set, has already enabled Node's own cache; this call then changes nothing.
    if (directory) module.enableCompileCache(directory);
  } catch {
    // No cache: the CLI works the same, only slower to start.
  }
}

/** The OS's per-user cache directory (as XDG, macOS and Windows define it), then shaper-gen/compile-cache. */
export function compileCacheDirectory(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | undefined {
  let base: string | undefined;
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) base = env.XDG_CACHE_HOME;
  else if (platform === 'win32') base = env.LOCALAPPDATA;
  else {
    const home = os.homedir();
    if (home) base = platform === 'darwin' ? path.join(home, 'Library', 'Caches') : path.join(home, '.cache');
  }
  return base ? path.join(base, 'shaper-gen', 'compile-cache') : undefined;
}
