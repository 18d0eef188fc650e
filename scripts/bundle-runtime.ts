/**
 * Bundles the runtime that tsc wrote to dist/ into the files the package
 * ships: the `shaper-gen` executable (dist/bin/shaper-gen.js, rewritten in
 * place), one module per package entry point (dist/package/) and the chunks
 * they share (dist/chunks/), with the runtime dependencies inside.
 *
 * Why: `serve` used to load some 330 modules, most of them CommonJS files of
 * its dependencies. Resolving them made Node's path functions hot enough for
 * V8 to optimise them at start-up, and the optimising compiler's own code,
 * paged in from the node binary, stayed resident: 7 of the 16 MiB that an
 * idle `serve` held above a bare node:https server. Bundled, `serve` loads
 * about 60 modules, nothing is optimised before the first review, and the
 * executable starts faster.
 *
 * Every entry point is bundled in one build with code splitting, so that a
 * process that loads several (the CLI, then the handlers' `shaper-gen`
 * import) gets one instance of each module. The type declarations stay where
 * tsc wrote them (dist/runtime/). The licences of what is bundled go to
 * dist/package/THIRD-PARTY-NOTICES.md.
 *
 *   node scripts/bundle-runtime.ts      (after tsc -p tsconfig.json; npm run build runs both)
 */
import { build, type Metafile } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(REPO, 'dist');

/** The package's entry points (package.json "exports" and "bin"), by output name, from tsc's output. */
const BUNDLE_ENTRIES = {
  'bin/shaper-gen': 'dist/bin/shaper-gen.js',
  'package/index': 'dist/runtime/index.js',
  'package/testing': 'dist/runtime/testing/index.js',
  'package/server': 'dist/runtime/server/index.js',
  'package/internal-generator': 'dist/runtime/internal/generator.js',
} as const;

/**
 * Loaded at run time by name, not bundled: the generator and its compiler (the `manifests` and `dev` commands
 * load them on demand), and what the runtime requires lazily (express for user routes, the Kubernetes client).
 */
const EXTERNAL = ['@shaper-gen/generator', 'typescript', 'ts-morph', 'express', '@kubernetes/client-node'];

async function main(): Promise<void> {
  const result = await build({
    absWorkingDir: REPO,
    entryPoints: Object.fromEntries(Object.entries(BUNDLE_ENTRIES).map(([name, file]) => [name, path.join(REPO, file)])),
    outdir: DIST,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    chunkNames: 'chunks/[name]-[hash]',
    external: EXTERNAL,
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __shaperGenCreateRequire } from 'node:module';\nconst require = __shaperGenCreateRequire(import.meta.url);" },
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  writeFileSync(path.join(DIST, 'package', 'THIRD-PARTY-NOTICES.md'), notices(result.metafile));
}

/** Name, version and licence text of every package with code in the bundle. */
function notices(metafile: Metafile): string {
  const packages = new Map<string, string>();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.set(match[1]!, path.join(REPO, input.slice(0, match.index + match[0].length)));
  }
  const sections = [...packages]
    .sort(([a], [b]) => a.localeCompare(b, 'en'))
    .map(([name, dir]) => {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string; license?: string };
      const licenseFile = readdirSync(dir).find((file) => /^(licen[cs]e|copying)(\.|$)/i.test(file));
      const text = licenseFile ? readFileSync(path.join(dir, licenseFile), 'utf8').trim() : `Licence: ${manifest.license ?? 'unknown'}`;
      return `## ${name} ${manifest.version}\n\n\`\`\`\n${text}\n\`\`\`\n`;
    });
  return `# Third-party notices\n\nThe files of this package include code of these packages.\n\n${sections.join('\n')}`;
}

await main();
