/**
 * What an `npm ci --omit=dev` tree must hold, read from the lockfile, and what
 * one holds, read from npm's record of it (node_modules/.package-lock.json).
 * Both are lists of install locations (`node_modules/a`,
 * `node_modules/a/node_modules/b`), so two versions of one package count twice.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface LockEntry {
  readonly version?: string;
  readonly link?: boolean;
  readonly optional?: boolean;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { optional?: boolean }>>;
}

interface Lockfile {
  readonly packages: Readonly<Record<string, LockEntry>>;
}

const readLockfile = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Lockfile;

/** The locations a production install of `lockfile` holds on this platform: the root's dependencies and everything they need, by Node's lookup. */
export function productionClosure(lockfile: string): string[] {
  const { packages } = readLockfile(lockfile);
  const reached = new Set<string>();
  const visit = (location: string, entry: LockEntry) => {
    const optionalPeers = new Set(
      Object.entries(entry.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    );
    const required = [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name))];
    const optional = Object.keys(entry.optionalDependencies ?? {});
    for (const [name, isOptional] of [...required.map((name) => [name, false] as const), ...optional.map((name) => [name, true] as const)]) {
      const found = lookUp(packages, location, name);
      if (found === undefined) {
        if (isOptional) continue;
        throw new Error(`${location || 'the root'} needs ${name}, which the lockfile does not hold`);
      }
      const dependency = packages[found]!;
      if (!runsHere(dependency)) continue;
      if (reached.has(found)) continue;
      reached.add(found);
      visit(found, dependency);
    }
  };
  const root = packages['']!;
  visit('', { dependencies: root.dependencies, optionalDependencies: root.optionalDependencies });
  return [...reached].sort();
}

/**
 * The locations an installed tree holds under node_modules, from npm's own
 * record of it. The record also lists the folders `file:` dependencies link to
 * (`generator`), whether installed or not; they are the project's own
 * folders, not something npm put in node_modules, and a Dockerfile copies them
 * or not.
 */
export function installedLocations(projectDir: string): string[] {
  return Object.keys(readLockfile(path.join(projectDir, 'node_modules/.package-lock.json')).packages)
    .filter((location) => location.startsWith('node_modules/'))
    .sort();
}

/** A location's package name: what follows its last node_modules/. */
export function packageName(location: string): string {
  return location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** Where Node finds `name` from the package at `location`: its own node_modules, then each enclosing one. */
function lookUp(packages: Lockfile['packages'], location: string, name: string): string | undefined {
  let from = location;
  for (;;) {
    const candidate = `${from ? `${from}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (from === '') return undefined;
    const parent = from.lastIndexOf('/node_modules/');
    from = parent < 0 ? '' : from.slice(0, parent);
  }
}

function runsHere(entry: LockEntry): boolean {
  return allows(entry.os, process.platform) && allows(entry.cpu, process.arch);
}

/** npm's os/cpu lists: a value that is listed, or not excluded with "!" by a list of exclusions only. */
function allows(list: readonly string[] | undefined, value: string): boolean {
  if (!list || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  return list.includes(value) || list.every((item) => item.startsWith('!'));
}
