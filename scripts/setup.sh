#!/usr/bin/env bash
# One-time (idempotent) setup: Node 24, npm packages, pinned helm. Safe to re-run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/env.sh"
bash "$root/scripts/ensure-node.sh"
cd "$root"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # Not `npm ci`: the registry mirror here lacks rollup's non-Linux optional
  # packages, so a lockfile written here never satisfies npm ci's sync check.
  # `npm install` still installs exactly the versions the lockfile pins.
  npm install --no-audit --no-fund --no-save
fi
if [ -f "$root/scripts/install-helm.sh" ]; then bash "$root/scripts/install-helm.sh"; fi
bash "$root/scripts/install-oracle.sh"
bash "$root/scripts/build-cel-engine.sh"
bash "$root/scripts/install-verdaccio.sh"
