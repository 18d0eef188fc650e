/**
 * The CEL engine (the API server's own admission and CEL code compiled to
 * WebAssembly, built from generator/cel-engine) loaded into this process:
 * Go's glue (wasm_exec.js) run in this context, the module compiled and
 * started synchronously. The Go program registers one function, which takes a
 * method and the request's JSON and returns the answer's JSON. `serve` loads
 * it only to enforce policies the API server does not serve; the generator
 * loads it for every CEL check.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runInThisContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';

export const ENGINE_FILE = 'cel-engine.wasm';
/** What an image carries instead of ENGINE_FILE: a fifth of its size, unpacked in memory when loaded. */
export const COMPRESSED_ENGINE_FILE = `${ENGINE_FILE}.gz`;
export const GO_GLUE_FILE = 'wasm_exec.js';

export type CelEngineCall = (method: string, request: string) => string;

/** What of WebAssembly this uses (the project's TypeScript libraries do not declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => object;
}

interface GoRuntime {
  readonly importObject: { gojs: Record<string, (sp: number) => void> };
  readonly _scheduledTimeouts: Map<number, NodeJS.Timeout>;
  run(instance: object): Promise<void>;
}

declare global {
  var Go: (new () => GoRuntime) | undefined;
  var shaperCelEngine: CelEngineCall | undefined;
}

/** Whether `directory` holds an engine build (the module, plain or gzipped, and Go's glue). */
export function holdsCelEngine(directory: string): boolean {
  return existsSync(path.join(directory, GO_GLUE_FILE)) && (existsSync(path.join(directory, ENGINE_FILE)) || existsSync(path.join(directory, COMPRESSED_ENGINE_FILE)));
}

// On globalThis, not in this module: a test runner that re-imports modules per test file in one process
// (vitest) must not start another Go runtime of some hundred MiB each time.
const LOADED = Symbol.for('shaper-gen.cel-engine');
const registry = globalThis as typeof globalThis & { [LOADED]?: CelEngineCall };

/** The engine in `directory`, started on the first call in this process; later calls return the same one. */
export function loadCelEngine(directory: string): CelEngineCall {
  registry[LOADED] ??= start(directory);
  return registry[LOADED];
}

function start(directory: string): CelEngineCall {
  if (!globalThis.Go) {
    const stubbed = !('fs' in globalThis);
    const glue = path.join(directory, GO_GLUE_FILE);
    runInThisContext(readFileSync(glue, 'utf8'), { filename: glue });
    if (stubbed) withoutFiles();
  }
  const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const go = new globalThis.Go!();
  unrefTimers(go);
  const plain = path.join(directory, ENGINE_FILE);
  const module = new Module(existsSync(plain) ? readFileSync(plain) : gunzipSync(readFileSync(path.join(directory, COMPRESSED_ENGINE_FILE))));
  // Runs Go's main until it waits: by then it has registered globalThis.shaperCelEngine.
  void go.run(new Instance(module, go.importObject));
  const call = globalThis.shaperCelEngine;
  if (!call) throw new Error(`the CEL engine in ${directory} started without registering its entry point`);
  return call;
}

/**
 * The glue's file system stub answers every open with ENOSYS, which Go's time.LoadLocation reports
 * as such ("not implemented on js") before trying its embedded zone database; answered "no such
 * file", it falls through to that database and, for a zone not in it, gives the API server's
 * "unknown time zone <name>".
 */
function withoutFiles(): void {
  const stub = (globalThis as unknown as { fs: { open: (path: string, flags: number, mode: number, callback: (error: Error) => void) => void } }).fs;
  stub.open = (_path, _flags, _mode, callback) => callback(Object.assign(new Error('no such file or directory'), { code: 'ENOENT' }));
}

/** Go's timers (its libraries' background goroutines) must not keep the process alive. */
function unrefTimers(go: GoRuntime): void {
  const schedule = go.importObject.gojs['runtime.scheduleTimeoutEvent']!;
  go.importObject.gojs['runtime.scheduleTimeoutEvent'] = (sp: number) => {
    schedule(sp);
    [...go._scheduledTimeouts.values()].at(-1)?.unref();
  };
}
