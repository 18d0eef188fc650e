import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuLimit, defaultWorkers } from '../../../../runtime/config/cpu-limit.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A fake /sys/fs/cgroup holding `files`. */
function cgroup(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cgroup-'));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

describe('the CPU limit and the default workers', () => {
  it.each<[string, Record<string, string>, number | undefined, number]>([
    ['cgroup v2 unlimited', { 'cpu.max': 'max 100000\n' }, undefined, 1],
    ['cgroup v2, 2 cores', { 'cpu.max': '200000 100000\n' }, 2, 2],
    ['cgroup v2, 1.5 cores', { 'cpu.max': '150000 100000\n' }, 1.5, 1],
    ['cgroup v2, half a core', { 'cpu.max': '50000 100000\n' }, 0.5, 1],
    ['cgroup v1 unlimited', { 'cpu/cpu.cfs_quota_us': '-1\n', 'cpu/cpu.cfs_period_us': '100000\n' }, undefined, 1],
    ['cgroup v1, 3 cores', { 'cpu/cpu.cfs_quota_us': '300000\n', 'cpu/cpu.cfs_period_us': '100000\n' }, 3, 3],
    ['cgroup v1 without a period', { 'cpu/cpu.cfs_quota_us': '300000\n' }, undefined, 1],
    ['no cgroup files', {}, undefined, 1],
    ['more cores than workers allowed', { 'cpu.max': '12800000 100000\n' }, 128, 64],
  ])('%s', (_title, files, limit, workers) => {
    const root = cgroup(files);
    expect(cpuLimit(root)).toBe(limit);
    expect(defaultWorkers(64, root)).toBe(workers);
  });

  it('prefers cgroup v2 when both are there', () => {
    expect(cpuLimit(cgroup({ 'cpu.max': '400000 100000', 'cpu/cpu.cfs_quota_us': '100000', 'cpu/cpu.cfs_period_us': '100000' }))).toBe(4);
  });
});
