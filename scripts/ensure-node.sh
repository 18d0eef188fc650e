#!/usr/bin/env bash
# Makes sure a Node >= 24 is first on PATH (see scripts/env.sh). The machine may
# ship an older Node; Node 24 then comes from the npm registry's `node@24`
# package (a platform binary package), installed into the cache, not globally.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"

current_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(current_major)" -lt "$SHAPER_NODE_MAJOR" ]; then
  dir="$SHAPER_CACHE/node$SHAPER_NODE_MAJOR"
  echo "shaper-gen: installing Node $SHAPER_NODE_MAJOR into $dir (machine has $(node --version 2>/dev/null || echo none))" >&2
  mkdir -p "$dir"
  # npm 11 warns that node's preinstall is not allow-listed, but still runs it.
  (cd "$dir" && npm install --no-save --no-audit --no-fund --prefix "$dir" "node@$SHAPER_NODE_MAJOR" >/dev/null)
  hash -r
  if [ "$(current_major)" -lt "$SHAPER_NODE_MAJOR" ]; then
    echo "shaper-gen: Node $SHAPER_NODE_MAJOR install failed; node on PATH is $(node --version)" >&2
    exit 1
  fi
fi
