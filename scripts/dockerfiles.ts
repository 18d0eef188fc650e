/**
 * Writes the repository's Dockerfile (the sample's image) and the scaffold's
 * (generator/scaffold/project/Dockerfile, a project's image) from their one
 * recipe, templates/dockerfile/Dockerfile.hbs, so that the two cannot drift;
 * with --check writes nothing and fails when either differs.
 *
 *   node scripts/dockerfiles.ts [--check]      (npm run dockerfiles; npm run dockerfiles:check)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// handlebars is the generator's dependency (generator/package.json), installed with it.
import handlebars from 'handlebars';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const template = handlebars.compile(readFileSync(path.join(root, 'templates/dockerfile/Dockerfile.hbs'), 'utf8'), { noEscape: true, strict: true });

const dockerfiles = [
  { file: 'Dockerfile', context: { repository: true, installProduction: 'npm install', cli: '/app/dist/bin/shaper-gen.js' } },
  { file: 'generator/scaffold/project/Dockerfile', context: { repository: false, installProduction: 'npm ci', cli: '/app/node_modules/shaper-gen/dist/bin/shaper-gen.js' } },
];

let stale = 0;
for (const { file, context } of dockerfiles) {
  const content = template(context);
  const target = path.join(root, file);
  if (readFileSync(target, 'utf8') === content) continue;
  if (check) {
    console.error(`dockerfiles:check: ${file} differs from templates/dockerfile/Dockerfile.hbs; run \`npm run dockerfiles\` and commit it`);
    stale++;
  } else {
    writeFileSync(target, content);
    console.log(`dockerfiles: wrote ${file}`);
  }
}
if (stale > 0) process.exit(1);
if (check) console.log(`dockerfiles:check: the ${dockerfiles.length} Dockerfiles are current`);
