/**
 * Writes the generated reference pages (docs/reference/), or with --check
 * writes nothing and fails with one line per page that is missing or differs
 * from what the code gives now.
 *
 *   node scripts/docs/generate-reference.ts [--check]      (npm run docs; npm run docs:check)
 *
 * Runs on the TypeScript sources, no build needed (source-hooks.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import './source-hooks.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const check = process.argv.includes('--check');
// Imported once the hooks are in place: the pages import the runtime's sources.
const { differingPages, renderReferencePages } = await import('./reference.ts');

const pages = await renderReferencePages(root);
const differing = differingPages(pages, root);
if (check) {
  for (const { file, state } of differing) console.error(`docs:check: ${file} is ${state}; run \`npm run docs\` and commit it`);
  if (differing.length > 0) process.exit(1);
  console.log(`docs:check: the ${pages.length} generated reference pages are current`);
} else {
  for (const { file } of differing) {
    const page = pages.find((p) => p.file === file)!;
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), page.content);
    console.log(`docs: wrote ${file}`);
  }
  if (differing.length === 0) console.log(`docs: the ${pages.length} generated reference pages are current`);
}
