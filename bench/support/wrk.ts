/** One fixed-duration wrk run (one thread, pinned to CPU 1) POSTing a body file over HTTPS; the summary line comes from wrk-report.lua. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPORT_SCRIPT = fileURLToPath(new URL('../admission/wrk-report.lua', import.meta.url));

export interface WrkResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  errors: number;
}

export interface WrkRun {
  port: number;
  urlPath: string;
  /** A file holding the request body. */
  bodyFile: string;
  connections: number;
  seconds: number;
}

export function runWrk({ port, urlPath, bodyFile, connections, seconds }: WrkRun): WrkResult {
  const result = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', REPORT_SCRIPT, `https://127.0.0.1:${port}${urlPath}`], {
    encoding: 'utf8',
    env: { ...process.env, SHAPER_BENCH_BODY: bodyFile },
    timeout: (seconds + 30) * 1000,
  });
  const line = /SHAPER_BENCH_RESULT (\{.*\})/.exec(result.stdout || '');
  if (!line) throw new Error(`wrk failed: ${result.stdout}${result.stderr}`);
  const r = JSON.parse(line[1]!) as { requests: number; durationUs: number; errors: number; p50Us: number; p99Us: number; p999Us: number };
  return { rps: r.requests / (r.durationUs / 1e6), p50Ms: r.p50Us / 1000, p99Ms: r.p99Us / 1000, p999Ms: r.p999Us / 1000, errors: r.errors };
}
