/**
 * Lets node run this repository's TypeScript sources without a build, for the
 * docs scripts: a relative `./x.js` import resolves to `./x.ts` when only the
 * source exists, `shaper-gen` and its subpaths resolve to their sources (as
 * tsconfig.json's "paths" and vitest.config.ts map them), and every `.ts`
 * file outside node_modules is compiled with TypeScript's transpileModule
 * (Node's own type stripping refuses parameter properties, which the runtime
 * uses). Imported for its effect; `node --import ./scripts/docs/source-hooks.ts`
 * does the same for a child process.
 */
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `shaper-gen/testing` → runtime/testing/index.ts, from package.json's exports. */
function selfReferences(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, string | { types?: string }> };
  const map = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    // The declarations, not the code: that is a bundle (scripts/bundle-runtime.ts).
    const declarations = typeof target === 'string' ? undefined : target.types;
    if (!declarations?.startsWith('./dist/') || !declarations.endsWith('.d.ts')) continue;
    const source = path.join(ROOT, declarations.slice('./dist/'.length).replace(/\.d\.ts$/, '.ts'));
    map.set(manifest.name + subpath.slice(1), pathToFileURL(source).href);
  }
  return map;
}

const SELF = selfReferences();

function isOwnSource(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  const file = fileURLToPath(url);
  return file.startsWith(ROOT + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`);
}

module.registerHooks({
  resolve(specifier, context, nextResolve) {
    const self = SELF.get(specifier);
    if (self) return { url: self, format: 'module', shortCircuit: true };
    if (specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../')) && context.parentURL && isOwnSource(context.parentURL)) {
      const target = new URL(specifier, context.parentURL);
      const source = new URL(target.href.replace(/\.js$/, '.ts'));
      if (!existsSync(target) && existsSync(source)) return { url: source.href, format: 'module', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!url.endsWith('.ts') || !isOwnSource(url)) return nextLoad(url, context);
    const file = fileURLToPath(url);
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: true, sourceMap: false },
    });
    return { format: 'module', source: outputText, shortCircuit: true };
  },
});
