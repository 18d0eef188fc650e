/**
 * Child processes of the cluster environment: each in its own process group,
 * its output in a log file, all of them killed when the environment stops —
 * and on exit, Ctrl-C or a crash of the test process.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';

const running = new Set<ChildProcess>();

function killAll(): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  running.clear();
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
  /** The last lines of its log, for error messages. */
  tail(lines?: number): string;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export function startProcess(name: string, command: string, args: string[], logFile: string, options: SpawnOptions = {}): ManagedProcess {
  const out = openSync(logFile, 'a');
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', out, out] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const tail = (lines = 20) => readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return {
    name,
    child,
    logFile,
    tail,
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid!, signal);
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Thrown by a probe to stop waiting at once (the process it waits for has died). */
export class GiveUp extends Error {}

/** Polls `probe` until it returns a value other than undefined, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, intervalMs = 250): Promise<T> {
  const until = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() > until) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
