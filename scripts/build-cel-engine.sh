#!/usr/bin/env bash
# Builds the CEL engine (generator/cel-engine: the API server's own
# CEL code, k8s.io/apiserver and cel-go, behind a JSON call interface) to
# WebAssembly with the Go on PATH, into
# $SHAPER_CACHE/cel-engine/<hash of its sources, go.sum and the Go version>/,
# so that a rebuild only happens when one of them changes (a first build takes
# minutes: the k8s.io modules). Links the result as
# generator/cel-engine/out, where the generator's tests load it and
# `npm run build:generator` copies it from into generator/dist/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
src="$here/../generator/cel-engine"
if ! command -v go >/dev/null; then
  echo "shaper-gen: building the CEL engine needs Go (go.mod says $(sed -n 's/^go //p' "$src/go.mod")) on PATH" >&2
  exit 1
fi
# Tests (conformance_test.go) are not part of the engine: they do not change its hash.
sources=()
for file in "$src"/*.go; do [[ $file == *_test.go ]] || sources+=("$file"); done
sum="$( (cat "$src"/go.mod "$src"/go.sum "${sources[@]}"; go version) | sha256sum | cut -c1-16)"
dir="$SHAPER_CACHE/cel-engine/$sum"
if [ ! -f "$dir/cel-engine.wasm" ]; then
  echo "shaper-gen: building the CEL engine into $dir (minutes the first time)" >&2
  mkdir -p "$dir"
  (cd "$src" && GOOS=js GOARCH=wasm CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags="-s -w -checklinkname=0" -o "$dir/cel-engine.wasm.tmp" .)
  cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$dir/wasm_exec.js"
  mv "$dir/cel-engine.wasm.tmp" "$dir/cel-engine.wasm"
fi
ln -sfn "$dir" "$src/out"
