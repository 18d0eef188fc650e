/**
 * shaper-gen and @shaper-gen/generator installed from tarballs outside vendor/
 * (`npm install ../shaper-gen-0.1.0.tgz`) are recorded as `file:../…` in
 * package.json and the lockfile: a path the image's build context does not
 * hold, so the Dockerfile's `npm ci` fails on a clean builder. init copies
 * such a tarball into vendor/, which the Dockerfile copies before installing,
 * and points the dependency at the copy; the `npm install` that follows
 * records the new path in the lockfile.
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const VENDOR_DIR = 'vendor';
const SECTIONS = ['dependencies', 'devDependencies'];

export interface VendoredTarball {
  /** `dependencies.shaper-gen`, … */
  readonly entry: string;
  /** The dependency's spec before: `file:../shaper-gen-0.1.0.tgz`. */
  readonly from: string;
  /** After: `file:vendor/shaper-gen-0.1.0.tgz`. */
  readonly to: string;
}

export interface Vendoring {
  readonly vendored: VendoredTarball[];
  /** One line each, for `file:` dependencies outside vendor/ that are not tarballs (a directory: npm links it). */
  readonly advice: string[];
}

/** Vendors the tarballs `packages` were installed from, rewriting their specs in `json` (the project's package.json). */
export function vendorTarballs(json: Record<string, unknown>, projectDir: string, packages: readonly string[]): Vendoring {
  const vendored: VendoredTarball[] = [];
  const advice: string[] = [];
  const vendorDir = path.join(projectDir, VENDOR_DIR);
  for (const section of SECTIONS) {
    const dependencies = json[section] as Record<string, string> | undefined;
    for (const name of packages) {
      const spec = dependencies?.[name];
      if (!spec?.startsWith('file:')) continue;
      const source = path.resolve(projectDir, spec.slice('file:'.length));
      if (!path.relative(vendorDir, source).startsWith('..') || !existsSync(source)) continue;
      const entry = `${section}.${name}`;
      if (!statSync(source).isFile()) {
        advice.push(`${entry} is ${spec}, outside the image's build context: npm pack it into ${VENDOR_DIR}/ and npm install the tarball from there`);
        continue;
      }
      const copy = `${VENDOR_DIR}/${path.basename(source)}`;
      mkdirSync(vendorDir, { recursive: true });
      copyFileSync(source, path.join(projectDir, copy));
      dependencies![name] = `file:${copy}`;
      vendored.push({ entry, from: spec, to: `file:${copy}` });
    }
  }
  return { vendored, advice };
}
