/** Writing generated files, or comparing them with what is on disk (`--check`). */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface GeneratedFile {
  /** Absolute path. */
  readonly path: string;
  readonly content: string;
  /** The inputs it is generated from when they are files of their own (a types module's CRDs), for `--check`'s message. */
  readonly sources?: readonly string[];
}

export interface StaleFile {
  readonly path: string;
  /** 'missing', or the first line that differs. */
  readonly reason: string;
}

/** Writes each file through a temporary sibling and a rename, so a reader never sees half a file. */
export function writeGeneratedFiles(files: readonly GeneratedFile[]): string[] {
  const changed: string[] = [];
  for (const file of files) {
    if (readIfExists(file.path) === file.content) continue;
    mkdirSync(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.content);
    renameSync(temporary, file.path);
    changed.push(file.path);
  }
  return changed;
}

/** Removes generated files no longer produced; returns them. */
export function removeObsoleteFiles(obsolete: readonly string[]): string[] {
  for (const file of obsolete) rmSync(file, { force: true });
  return [...obsolete];
}

export function findStaleFiles(files: readonly GeneratedFile[], obsolete: readonly string[] = []): StaleFile[] {
  const stale: StaleFile[] = obsolete.map((file) => ({ path: file, reason: 'no longer generated (its kind is gone); run `shaper-gen manifests` to remove it' }));
  for (const file of files) {
    const current = readIfExists(file.path);
    if (current === undefined) stale.push({ path: file.path, reason: 'missing' });
    else if (current !== file.content)
      stale.push({ path: file.path, reason: `${file.sources ? `differs from what ${file.sources.join(', ')} give: ` : ''}${firstDifference(current, file.content)}` });
  }
  return stale;
}

function firstDifference(current: string, expected: string): string {
  const have = current.split('\n');
  const want = expected.split('\n');
  for (let i = 0; i < Math.max(have.length, want.length); i++) {
    if (have[i] !== want[i]) {
      return `line ${i + 1}: expected ${JSON.stringify(want[i] ?? '<end of file>')}, found ${JSON.stringify(have[i] ?? '<end of file>')}`;
    }
  }
  return 'differs';
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
