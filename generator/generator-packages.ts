/**
 * The generator's own packages (ts-morph, handlebars, the CEL checker) are
 * optional peer dependencies of shaper-gen, so that production images, which
 * only serve, do not carry them. Where they are missing, say how to add them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

export async function withGeneratorPackages<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const missing = missingGeneratorPackages(error);
    if (missing.length === 0) throw error;
    console.error(`shaper-gen: this command needs the generator's packages, which are not installed: npm install --save-dev ${missing.join(' ')}`);
    process.exit(1);
  }
}

function missingGeneratorPackages(error: unknown): string[] {
  const code = (error as { code?: unknown })?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return [];
  const manifest = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
  const peers = Object.entries(manifest.peerDependencies);
  if (!peers.some(([name]) => String((error as Error).message).includes(`'${name}'`))) return [];
  return peers.map(([name, range]) => `${name}@${range}`);
}
