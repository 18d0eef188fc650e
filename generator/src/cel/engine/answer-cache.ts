/**
 * The answers of the engine's pure calls (compile, estimateCost, validateCrd)
 * kept on disk per engine build, so that `manifests` loads the ~100 MB engine
 * (seconds) only for an expression or a CRD it has not judged before. The key
 * is the whole request; a build is told apart by its file's path, size and
 * modification time. The cache is an optimisation: a file that cannot be read
 * or written is skipped, never an error.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ENGINE_FILE } from 'shaper-gen/internal/generator';
import { engineDirectory } from './locate.js';

/** SHAPER_GEN_CACHE as scripts/env.sh reads it; SHAPER_GEN_NO_CEL_CACHE=1 turns the cache off. */
function cacheDirectory(): string | undefined {
  if (process.env.SHAPER_GEN_NO_CEL_CACHE === '1') return undefined;
  return path.join(process.env.SHAPER_GEN_CACHE ?? path.join(homedir(), '.cache', 'shaper-gen'), 'cel-answers');
}

interface Store {
  readonly file: string;
  readonly answers: Record<string, unknown>;
}

let store: Store | null | undefined;

function open(): Store | null {
  const directory = cacheDirectory();
  if (!directory) return null;
  try {
    const wasm = path.join(engineDirectory(), ENGINE_FILE);
    const stat = statSync(wasm);
    const build = createHash('sha256').update(`${wasm}\0${stat.size}\0${stat.mtimeMs}`).digest('hex').slice(0, 16);
    const file = path.join(directory, `${build}.json`);
    let answers: Record<string, unknown> = {};
    try {
      answers = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // none yet, or unreadable: start empty
    }
    return { file, answers };
  } catch {
    return null;
  }
}

function save(current: Store): void {
  try {
    mkdirSync(path.dirname(current.file), { recursive: true });
    const temporary = `${current.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(current.answers));
    renameSync(temporary, current.file);
  } catch {
    // a read-only home or a full disk: the answers are recomputed next time
  }
}

/** The engine's answer to a pure call, from the cache when this build answered the same request before. */
export function cachedAnswer<T>(method: string, request: unknown, ask: () => T): T {
  if (store === undefined) store = open();
  if (store === null) return ask();
  const key = createHash('sha256').update(method).update('\0').update(JSON.stringify(request)).digest('base64url');
  if (key in store.answers) return store.answers[key] as T;
  const answer = ask();
  store.answers[key] = answer;
  save(store);
  return answer;
}
