/**
 * The CEL engine loaded once per process, on first use: Go's glue
 * (wasm_exec.js) run in this context, the module compiled and started
 * synchronously. The Go program registers one function, which takes a method
 * and the request's JSON and returns the answer's JSON.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInThisContext } from 'node:vm';
import { ENGINE_FILE, GO_GLUE_FILE, engineDirectory } from './locate.js';

type EngineCall = (method: string, request: string) => string;

/** What of WebAssembly this uses (the project's TypeScript libraries do not declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => object;
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

interface GoRuntime {
  readonly importObject: { gojs: Record<string, (sp: number) => void> };
  readonly _scheduledTimeouts: Map<number, NodeJS.Timeout>;
  run(instance: object): Promise<void>;
}

declare global {
  var Go: (new () => GoRuntime) | undefined;
  var shaperCelEngine: EngineCall | undefined;
}

// On globalThis, not in this module: a test runner that re-imports modules per test file in one process
// (vitest) must not start another Go runtime of some hundred MiB each time.
const LOADED = Symbol.for('shaper-gen.cel-engine');
const registry = globalThis as typeof globalThis & { [LOADED]?: EngineCall };

export function engine(): EngineCall {
  registry[LOADED] ??= start();
  return registry[LOADED];
}

function start(): EngineCall {
  const directory = engineDirectory();
  if (!globalThis.Go) {
    const stubbed = !('fs' in globalThis);
    const glue = path.join(directory, GO_GLUE_FILE);
    runInThisContext(readFileSync(glue, 'utf8'), { filename: glue });
    if (stubbed) withoutFiles();
  }
  const go = new globalThis.Go!();
  unrefTimers(go);
  const module = new Module(readFileSync(path.join(directory, ENGINE_FILE)));
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
