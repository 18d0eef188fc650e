/** Finds shaper-gen's own package directory, where templates/ and scaffold/ live, from the sources and the build alike. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The shaper-gen package directory, from the sources (generator/) or the build (dist/generator/). */
export function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'shaper-gen') return (root = dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the shaper-gen package root');
    dir = parent;
  }
}
