/**
 * Fails, one line per problem, when README.md, CONTRIBUTING.md or a page
 * under docs/ links to a file that does not exist or names a repository path
 * in backticks that does not exist (the rules: links.ts).
 *
 *   node scripts/docs/check-links.ts      (part of npm run docs:check)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDocs } from './links.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { problems, files, links, paths } = checkDocs(root);
for (const problem of problems) console.error(`docs:check: ${problem.file}:${problem.line}: ${problem.message}`);
// A check that found nothing to read would pass whatever the docs say.
if (files === 0 || links + paths === 0) {
  console.error('docs:check: found no markdown files, links or paths to check; is this the repository root?');
  process.exit(1);
}
if (problems.length > 0) process.exit(1);
console.log(`docs:check: ${files} markdown files, ${links} links and ${paths} repository paths checked`);
