/** The namespace label that decides which guard the benchmark's Profiles go through (bench/policy/guards.ts). */
export const GUARD_LABEL = 'bench.shaper-gen.io/guard';
