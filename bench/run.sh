#!/usr/bin/env bash
# `npm run bench`: installs wrk (and GNU time) if missing, builds, then runs the
# generator scaling and start-up benchmarks, the admission load benchmarks, the
# Express-router comparison and the CPU profile. Bounded: about 15 minutes with
# the defaults, plus building controller-gen and the controller-runtime peer
# once (every run is fixed-duration or counted, and each step has a timeout).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/env.sh
if ! command -v wrk >/dev/null || ! command -v taskset >/dev/null || ! command -v openssl >/dev/null || [ ! -x /usr/bin/time ]; then
  apt-get install -y -qq wrk util-linux openssl time >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk util-linux openssl time >/dev/null; }
fi
npm run --silent build
# The admission benchmark runs both servers with the NODE_OPTIONS the chart renders (helm template).
command -v go >/dev/null && bash scripts/install-helm.sh
npx tsc -p bench/tsconfig.build.json
timeout 120 node bench/generator-scale.ts
if command -v go >/dev/null; then
  # The first run also builds controller-gen (go install, up to 15 minutes); later runs about 1 minute.
  timeout 1200 node bench/generator-startup.ts
else
  echo "bench: Go is not installed; skipping the start-up comparison with controller-gen (bench/generator-startup.ts)"
fi
# Builds the controller-runtime peer into the cache when its sources changed (the first build takes minutes).
timeout 960 node bench/admission/build-peer.ts
timeout 900 node bench/admission/run.ts "$@"
timeout 120 node bench/admission/run.ts --express-comparison
timeout 120 node bench/admission/run.ts --profile
timeout 600 node bench/faults/run.ts
timeout 300 node bench/memory/run.ts
# What the sample's image holds (root and buildah, as kindEnv builds it).
if command -v buildah >/dev/null && [ "$(id -u)" = 0 ]; then
  timeout 600 node bench/image/run.ts
else
  echo "bench: needs root and buildah; skipping the image contents (bench/image/run.ts)"
fi
# Cached vs live lookups against kindEnv's real API server (root, and the cluster tools built from the Go module proxy).
if command -v go >/dev/null && [ "$(id -u)" = 0 ]; then
  bash scripts/install-cluster-tools.sh
  timeout 600 node bench/cache/run.ts
else
  echo "bench: needs Go and root (kindEnv); skipping cached vs live lookups (bench/cache/run.ts)"
fi
