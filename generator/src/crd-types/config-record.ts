/**
 * `create types` records what it was run with under `types` in shaper.yaml,
 * keeping the file's comments and layout, so that `manifests` (and CI's
 * `manifests --check`) know which CRDs the modules come from.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { CONFIG_API_VERSION, CONFIG_KIND, DEFAULT_CONFIG_FILE, directoryKey, type TypesSource } from '../config.js';

const TYPES_COMMENT = ' CRDs another project owns: `shaper-gen create types` wrote their TypeScript types into `out`, and `manifests` keeps them in step.';

/**
 * Sets the `types` entry whose `out` is `entry.out` (or adds one) in
 * `configFile`, or in a new shaper.yaml in `root` when there is none; returns
 * the file when it changed.
 */
export function recordTypesSource(configFile: string | undefined, root: string, entry: TypesSource): string | undefined {
  const file = configFile ?? path.join(root, DEFAULT_CONFIG_FILE);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : `apiVersion: ${CONFIG_API_VERSION}\nkind: ${CONFIG_KIND}\n`;
  const document = parseDocument(before);
  const value = { from: [...entry.from], out: entry.out };
  const types = document.get('types', true);
  if (isSeq(types)) {
    const index = types.items.findIndex((item) => isMap(item) && directoryKey(String(item.get('out'))) === directoryKey(entry.out));
    if (index === -1) types.add(document.createNode(value));
    else document.setIn(['types', index, 'from'], document.createNode(value.from));
  } else {
    const list = document.createNode([value]);
    list.commentBefore = TYPES_COMMENT;
    document.set('types', list);
  }
  const after = document.toString({ flowCollectionPadding: false });
  if (after === before) return undefined;
  writeFileSync(file, after);
  return file;
}
