import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDirectory } from '../../../../runtime/cli/cache-directory.js';

describe('cacheDirectory', () => {
  it('is shaper-gen in the OS cache directory: XDG_CACHE_HOME when absolute, else the platform default', () => {
    expect(cacheDirectory({ XDG_CACHE_HOME: '/xdg' }, 'linux')).toBe(path.join('/xdg', 'shaper-gen'));
    expect(cacheDirectory({ XDG_CACHE_HOME: 'relative' }, 'linux')).toBe(path.join(os.homedir(), '.cache', 'shaper-gen'));
    expect(cacheDirectory({}, 'linux')).toBe(path.join(os.homedir(), '.cache', 'shaper-gen'));
    expect(cacheDirectory({}, 'darwin')).toBe(path.join(os.homedir(), 'Library', 'Caches', 'shaper-gen'));
    expect(cacheDirectory({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toBe(path.join('C:\\Users\\u\\AppData\\Local', 'shaper-gen'));
    expect(cacheDirectory({}, 'win32')).toBeUndefined();
  });
});
