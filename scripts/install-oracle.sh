#!/usr/bin/env bash
# Builds the wire-format oracle (test/oracle: the API machinery's own decoders,
# VerifyAdmissionResponse, NewInvalid, the API server's JSON Patch library)
# from the Go module proxy into $SHAPER_CACHE, keyed by the hash of its
# sources, so a warm run costs nothing. The e2e suite runs it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
src="$here/../test/oracle"
sum="$(cat "$src"/go.mod "$src"/go.sum "$src"/*.go | sha256sum | cut -c1-12)"
dir="$SHAPER_CACHE/tools/oracle-$sum"
if [ ! -x "$dir/shaper-oracle" ]; then
  echo "shaper-gen: building the wire-format oracle (about a minute, once)" >&2
  mkdir -p "$dir"
  (cd "$src" && CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags="-s -w" -o "$dir/shaper-oracle.tmp" . && mv "$dir/shaper-oracle.tmp" "$dir/shaper-oracle")
fi
mkdir -p "$SHAPER_CACHE/bin"
ln -sfn "$dir/shaper-oracle" "$SHAPER_CACHE/bin/shaper-oracle"
