/**
 * The lock the cluster tests run under (`flock /tmp/shaper-cluster.lock npx vitest run --config
 * vitest.cluster.config.ts …`), taken from inside a process: a benchmark that starts a control
 * plane holds it so that its ports and CPUs are not shared with a cluster test. `flock` runs
 * `cat` on a pipe from this process: the lock is held until this process closes the pipe or
 * exits, however it exits.
 */
import { spawn } from 'node:child_process';

export const CLUSTER_LOCK = '/tmp/shaper-cluster.lock';

export interface HeldLock {
  release(): void;
}

/** Waits for the lock (at most `timeoutMs`), saying after a few seconds who it is waiting for. */
export async function holdClusterLock(log: (line: string) => void, timeoutMs = 30 * 60_000): Promise<HeldLock> {
  const child = spawn('flock', ['--exclusive', CLUSTER_LOCK, '-c', 'echo locked && exec cat'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const release = () => child.stdin.end();
  const waiting = setTimeout(() => log(`waiting for ${CLUSTER_LOCK}: a cluster test or benchmark holds it (do not run this under flock yourself: it takes the lock itself)`), 3000);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${CLUSTER_LOCK} still held by another process after ${timeoutMs / 60_000} min`)), timeoutMs);
      child.stdout.once('data', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('error', (error) => reject(new Error(`flock: ${error.message} (util-linux's flock is needed)`)));
      child.once('exit', (code) => reject(new Error(`flock exited with ${code} before taking ${CLUSTER_LOCK}`)));
    });
  } catch (error) {
    child.kill();
    throw error;
  } finally {
    clearTimeout(waiting);
  }
  return { release };
}
