/**
 * The container's CPU limit, from its cgroup, for the default of `workers`.
 *
 * Without a limit the default is 1, not one per host core: a pod without a CPU
 * limit shares a node with others, and forking a process per core of the node
 * would multiply the memory it needs (each worker has its own heap) for CPU
 * time it is not promised. With a limit of N cores, N workers can use it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * Cores the cgroup may use (quota / period), or undefined when unlimited or
 * unknown. cgroup v2: `cpu.max`, "max 100000" or "200000 100000"; cgroup v1:
 * `cpu/cpu.cfs_quota_us` (-1: unlimited) and `cpu/cpu.cfs_period_us`.
 */
export function cpuLimit(root = CGROUP_ROOT): number | undefined {
  const v2 = read(path.join(root, 'cpu.max'));
  if (v2 !== undefined) {
    const [quota, period] = v2.split(/\s+/);
    return cores(quota, period);
  }
  return cores(read(path.join(root, 'cpu', 'cpu.cfs_quota_us')), read(path.join(root, 'cpu', 'cpu.cfs_period_us')));
}

/** `workers` when the configuration does not say: max(1, floor(limit)), 1 without a limit, at most `max`. */
export function defaultWorkers(max: number, root = CGROUP_ROOT): number {
  const limit = cpuLimit(root);
  return limit === undefined ? 1 : Math.min(max, Math.max(1, Math.floor(limit)));
}

function cores(quota: string | undefined, period: string | undefined): number | undefined {
  if (quota === undefined || period === undefined || quota === 'max') return undefined;
  const q = Number(quota);
  const p = Number(period);
  return Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0 ? q / p : undefined;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
