/** Where the CLI keeps its caches across runs (Node's compile cache, the TypeScript compiler's code cache): a per-user, per-OS location. */
import os from 'node:os';
import path from 'node:path';

/**
 * shaper-gen's directory in the OS's per-user cache directory (as XDG, macOS
 * and Windows define it); undefined where there is none. Only ever used for
 * caches: losing or failing to write it costs time, nothing else.
 */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  let base: string | undefined;
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) base = env.XDG_CACHE_HOME;
  else if (platform === 'win32') base = env.LOCALAPPDATA;
  else {
    const home = os.homedir();
    if (home) base = platform === 'darwin' ? path.join(home, 'Library', 'Caches') : path.join(home, '.cache');
  }
  return base ? path.join(base, 'shaper-gen') : undefined;
}
