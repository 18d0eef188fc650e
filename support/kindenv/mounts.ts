/**
 * What a node leaves mounted under its directory when it is stopped hard
 * (Secret tmpfs volumes, container root filesystems): unmounted, deepest
 * first, so the directory can be removed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export function unmountUnder(dir: string): void {
  const mountPoints = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4]?.replace(/\\040/g, ' '))
    .filter((point): point is string => !!point && (point === dir || point.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const point of mountPoints) {
    try {
      execFileSync('umount', ['-l', point], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  }
}
