#!/usr/bin/env bash
# Fetches cel-spec's simple conformance tests (tests/simple/testdata/*.textproto)
# of the cel.dev/expr version the CEL engine's go.mod pins (the cel-spec that
# the engine's cel-go was built against) from the Go module proxy, checked
# against the engine's go.sum, into $SHAPER_CACHE/cel-spec/<version>/; prints
# that directory. Nothing of cel-spec is committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
engine="$here/../generator/cel-engine"
if ! command -v go >/dev/null; then
  echo "shaper-gen: fetching cel-spec's conformance data needs Go on PATH" >&2
  exit 1
fi
version="$(cd "$engine" && go list -m -f '{{.Version}}' cel.dev/expr)"
dir="$SHAPER_CACHE/cel-spec/$version"
if [ ! -f "$dir/basic.textproto" ]; then
  module="$(cd "$engine" && go mod download -json "cel.dev/expr@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  mkdir -p "$dir.tmp"
  cp "$module"/tests/simple/testdata/*.textproto "$dir.tmp/"
  chmod u+w "$dir.tmp"/*
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
fi
echo "$dir"
