/** V8 flags the CLI sets at start (bin/process-setup.ts), remembered so that the generator's TypeScript code cache is keyed by them (@shaper-gen/generator's typescript.ts). */
import v8 from 'node:v8';

const applied: string[] = [];

/** Sets V8 flags for the rest of this process, and remembers them: V8 rejects a code cache made under other flags. */
export function setV8Flags(...flags: string[]): void {
  for (const flag of flags) {
    v8.setFlagsFromString(flag);
    applied.push(flag);
  }
}

export function appliedV8Flags(): readonly string[] {
  return applied;
}
