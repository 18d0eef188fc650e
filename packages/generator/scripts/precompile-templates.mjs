// Part of `npm run build`: compiles templates/ into dist/templates.precompiled.js,
// so that `shaper-gen manifests` renders with handlebars' runtime instead of compiling
// every template on every run (see loadTemplates in src/render.ts).
import { writeFileSync } from 'node:fs';
import { precompiledTemplatesModule } from '../dist/render.js';

writeFileSync(new URL('../dist/templates.precompiled.js', import.meta.url), await precompiledTemplatesModule());
