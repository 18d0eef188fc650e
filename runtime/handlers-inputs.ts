/**
 * What the handlers module was generated from: a digest of each source file
 * `shaper-gen manifests` read, recorded under the project's
 * node_modules/.cache (not beside the module: that is committed, and would
 * change with every edit). `serve --dev` compares the sources with it to say
 * when the module may be out of date. Shared by the generator and the runtime,
 * which does not import the generator.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Relative to the project root (the directory of shaper.yaml). */
export const HANDLERS_INPUTS_RECORD = 'node_modules/.cache/shaper-gen/handlers-inputs.json';

/** sha256 of each file's bytes, by its path relative to `root` with `/` separators. */
export type InputDigests = Readonly<Record<string, string>>;

interface InputsRecord {
  /** Relative to the root: the module these inputs were generated into. */
  readonly handlersModule: string;
  readonly inputs: InputDigests;
}

export function digestInputs(root: string, files: readonly string[]): InputDigests {
  const digests: Record<string, string> = {};
  for (const file of [...files].map((f) => path.resolve(root, f)).sort()) {
    digests[toPosix(path.relative(root, file))] = createHash('sha256').update(readFileSync(file)).digest('hex');
  }
  return digests;
}

/** Records the inputs of `handlersModule`. A cache: when it cannot be written, no record is better than an old one. */
export function writeInputsRecord(root: string, handlersModule: string, inputs: InputDigests): void {
  const file = path.join(root, HANDLERS_INPUTS_RECORD);
  const record: InputsRecord = { handlersModule: toPosix(path.relative(root, path.resolve(root, handlersModule))), inputs };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  } catch {
    rmSync(file, { force: true });
  }
}

/** The recorded inputs of `handlersModule`, or undefined when none are recorded for it. */
export function readInputsRecord(root: string, handlersModule: string): InputDigests | undefined {
  let record: { readonly [K in keyof InputsRecord]?: unknown };
  try {
    record = JSON.parse(readFileSync(path.join(root, HANDLERS_INPUTS_RECORD), 'utf8')) as typeof record;
  } catch {
    return undefined;
  }
  const wanted = toPosix(path.relative(root, path.resolve(root, handlersModule)));
  return record.handlersModule === wanted && typeof record.inputs === 'object' && record.inputs !== null ? (record.inputs as InputDigests) : undefined;
}

/** Files added, removed or changed between two sets of digests, sorted. */
export function changedInputs(recorded: InputDigests, current: InputDigests): string[] {
  const files = new Set([...Object.keys(recorded), ...Object.keys(current)]);
  return [...files].filter((file) => recorded[file] !== current[file]).sort();
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}
