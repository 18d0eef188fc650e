/**
 * The TypeScript compiler the generator parses and checks with: the copy that
 * ts-morph (a dependency of this package) bundles, loaded on its own. ts-morph's
 * own layer is not used, and loading it costs another ~0.1 s on every run.
 * Loaded on first use only, so commands and runs that never scan do not pay for it.
 *
 * The compiler is 9 MB of JavaScript, and most of a scan's time in it is V8
 * compiling its parser's functions on first call. So it is compiled with a V8
 * code cache of its own (beside Node's compile cache, which holds only what is
 * compiled at load): written at the exit of a run that had none, it holds
 * every function that run used, and later runs start with them compiled.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import type { ts } from 'ts-morph';
import { appliedV8Flags, cacheDirectory } from 'shaper-gen/internal/generator';

export type TypeScript = typeof ts;

let loaded: TypeScript | undefined;

export function loadTypeScript(): TypeScript {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const tsMorph = require.resolve('ts-morph');
  let compiler: TypeScript | undefined;
  try {
    const common = createRequire(tsMorph).resolve('@ts-morph/common');
    const file = path.join(path.dirname(common), 'typescript.js');
    compiler = loadWithCodeCache(file) ?? (require(file) as TypeScript);
  } catch {
    // Another layout of ts-morph's internals: go through its public export.
  }
  if (typeof compiler?.createSourceFile !== 'function') compiler = (require('ts-morph') as { ts: TypeScript }).ts;
  return (loaded = compiler);
}

/** Runs typescript.js as Node would run a CommonJS module, compiled with the code cache; undefined where there is no cache directory. */
function loadWithCodeCache(file: string): TypeScript | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const directory = cacheDirectory();
  if (!directory) return undefined;
  const { size, mtimeMs } = statSync(file);
  // V8 rejects a cache made under other flags: processes started or set up differently keep caches of their own.
  const flags = [process.execArgv, process.env.NODE_OPTIONS ?? '', appliedV8Flags()];
  const key = hash(JSON.stringify([file, size, mtimeMs, process.version, process.arch, flags]));
  const cacheFile = path.join(directory, 'typescript-code-cache', `${key}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // None yet.
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${readFileSync(file, 'utf8')}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const module = { exports: {} as TypeScript };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, path.dirname(file));
  if (cachedData === undefined || script.cachedDataRejected) process.once('exit', () => writeCodeCache(script, cacheFile));
  return module.exports;
}

/** 64 bits of FNV-1a, as two 32-bit halves: names a cache file (V8 itself rejects a cache made for another source or V8); node:crypto would cost more to load. */
function hash(text: string): string {
  let low = 0x811c9dc5;
  let high = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    low = Math.imul(low ^ code, 0x01000193) >>> 0;
    high = Math.imul(high ^ code ^ (low >>> 24), 0x01000193) >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

function writeCodeCache(script: vm.Script, cacheFile: string): void {
  try {
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    const temporary = `${cacheFile}.${process.pid}`;
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, cacheFile);
  } catch {
    // Read-only or full: the next run compiles as this one did.
  }
}
