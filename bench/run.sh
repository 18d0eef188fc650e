#!/usr/bin/env bash
# `npm run bench`: installs wrk if missing, builds, then runs the generator
# scaling and admission load benchmarks, the Express-router comparison and the
# CPU profile. Bounded: about 10 minutes with the defaults (every run is
# fixed-duration or counted, and each step has a timeout).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/env.sh
if ! command -v wrk >/dev/null || ! command -v taskset >/dev/null || ! command -v openssl >/dev/null; then
  apt-get install -y -qq wrk util-linux openssl >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk util-linux openssl >/dev/null; }
fi
npm run --silent build
npx tsc -p bench/tsconfig.json
timeout 120 node bench/generator-scale.ts
timeout 600 node bench/admission/run.ts "$@"
timeout 120 node bench/admission/run.ts --express-comparison
timeout 120 node bench/admission/run.ts --profile
timeout 600 node bench/faults/run.ts
timeout 300 node bench/memory/run.ts
