// Part of `npm run build`: compiles the repository's templates/ into dist/chart/templates.precompiled.js,
// so that `shaper-gen manifests` renders with handlebars' runtime instead of compiling
// every template on every run, and the published package needs no template sources
// (see loadTemplates in src/chart/render.ts).
import { writeFileSync } from 'node:fs';
import { precompiledTemplatesModule, repositoryTemplatesDir } from '../dist/chart/render.js';

const dir = repositoryTemplatesDir();
if (!dir) throw new Error('precompile-templates: no templates/ beside the generator package');
writeFileSync(new URL('../dist/chart/templates.precompiled.js', import.meta.url), await precompiledTemplatesModule(dir));
