/**
 * Sees every kind of save under a directory: in place, atomic (a temporary
 * file renamed over the source, as editors save), a rename, a new file, a
 * deleted one, a directory moved in or out. One non-recursive `fs.watch` per
 * directory: a directory's watch reports its entries by name, so a file
 * replaced by a rename is still seen, where Node's recursive watch on Linux
 * (one watch per file, on its inode) stops seeing a file after the first atomic
 * save. Directories are watched as they appear and dropped as they go.
 */
import { readdirSync, statSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface SourceWatcherOptions {
  /** Whether a file (absolute path) is a source whose change matters. */
  readonly isSource: (file: string) => boolean;
  /** Whether a directory (its name) is left out with everything under it. */
  readonly skipsDirectory: (name: string) => boolean;
  /** Called with the changed file, or the directory that appeared or went. */
  readonly onChange: (file: string) => void;
}

export interface SourceWatcher {
  close(): void;
}

export function watchSources(root: string, options: SourceWatcherOptions): SourceWatcher {
  const watchers = new Map<string, FSWatcher>();

  const entries = (dir: string): Dirent[] => {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
  };
  const isDirectory = (file: string): boolean => {
    try {
      return statSync(file).isDirectory();
    } catch {
      return false;
    }
  };
  /** Watches `dir` and the directories under it; true when a source is among them. */
  const add = (dir: string): boolean => {
    if (watchers.has(dir)) return false;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        if (name) changed(dir, name);
      });
    } catch {
      return false;
    }
    watcher.on('error', () => remove(dir));
    watchers.set(dir, watcher);
    let sources = false;
    for (const entry of entries(dir)) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) sources = (!options.skipsDirectory(entry.name) && add(file)) || sources;
      else sources ||= options.isSource(file);
    }
    return sources;
  };
  const remove = (dir: string): void => {
    for (const [watched, watcher] of watchers) {
      if (watched !== dir && !watched.startsWith(dir + path.sep)) continue;
      watcher.close();
      watchers.delete(watched);
    }
  };
  const changed = (dir: string, name: string): void => {
    const file = path.join(dir, name);
    if (watchers.has(file)) {
      if (isDirectory(file)) return;
      remove(file);
      options.onChange(file);
    } else if (isDirectory(file)) {
      if (!options.skipsDirectory(name) && add(file)) options.onChange(file);
    } else if (options.isSource(file)) options.onChange(file);
  };

  add(root);
  return {
    close: () => remove(root),
  };
}
