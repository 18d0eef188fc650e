// Preloaded with --import into a measured process: reports its own peak RSS on exit.
process.on('exit', () => {
  process.stderr.write(`\nSHAPER_BENCH_MAXRSS_KB=${process.resourceUsage().maxRSS}\n`);
});
