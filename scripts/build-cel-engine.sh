#!/usr/bin/env bash
# Builds the CEL engine (generator/cel-engine: the API server's own
# CEL code, k8s.io/apiserver and cel-go, behind a JSON call interface) to
# WebAssembly with the Go on PATH, into
# $SHAPER_CACHE/cel-engine/<hash of its sources, go.sum and the Go version>/,
# so that a rebuild only happens when one of them changes (a first build takes
# minutes: the k8s.io modules). Links the result as
# generator/cel-engine/out, where the generator's tests load it and
# `npm run build:generator` copies it from into generator/dist/.
#
# --go-flags: prepare the module copies only and print the flags a `go build`
# or `go test` of the engine for js/wasm needs (the conformance benchmark uses them).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
src="$here/../generator/cel-engine"
if ! command -v go >/dev/null; then
  echo "shaper-gen: building the CEL engine needs Go (go.mod says $(sed -n 's/^go //p' "$src/go.mod")) on PATH" >&2
  exit 1
fi

# The custom resource strategy (apiextensions-apiserver's pkg/registry/customresource) reaches the
# etcd client through its storage files, which js/wasm cannot compile (flock, journald sockets) and the
# engine never runs: the wasm build uses copies of k8s.io/apiserver and apiextensions-apiserver without
# those three files (in the cache, never committed), through a go.mod that replaces the two.
modules="$SHAPER_CACHE/cel-engine/modules-$( (cat "$src"/go.mod "$src"/go.sum "${BASH_SOURCE[0]}"; go version) | sha256sum | cut -c1-16)"
if [ ! -f "$modules/complete" ]; then
  # `go list -m` names a module's directory only once it is downloaded (a fresh machine has none).
  (cd "$src" && go mod download k8s.io/apiserver k8s.io/apiextensions-apiserver)
  apiserver="$(cd "$src" && go list -m -f '{{.Dir}}' k8s.io/apiserver)"
  extensions="$(cd "$src" && go list -m -f '{{.Dir}}' k8s.io/apiextensions-apiserver)"
  rm -rf "$modules" && mkdir -p "$modules"
  cp -r "$apiserver" "$modules/apiserver" && cp -r "$extensions" "$modules/apiextensions-apiserver" && chmod -R u+w "$modules"
  rm "$modules/apiserver/pkg/registry/generic/options.go" "$modules/apiserver/pkg/registry/generic/storage_decorator.go" \
    "$modules/apiextensions-apiserver/pkg/registry/customresource/etcd.go"
  cp "$src/go.mod" "$modules/go.mod" && cp "$src/go.sum" "$modules/go.sum"
  (cd "$src" && go mod edit -modfile="$modules/go.mod" -replace k8s.io/apiserver="$modules/apiserver" -replace k8s.io/apiextensions-apiserver="$modules/apiextensions-apiserver")
  touch "$modules/complete"
fi
# -checklinkname=0: admit.go reaches the admission plugins' own (unexported) compilePolicy with go:linkname.
go_flags=(-mod=readonly "-modfile=$modules/go.mod" -trimpath "-ldflags=-s -w -checklinkname=0")
if [ "${1:-}" = "--go-flags" ]; then
  printf '%s\n' "${go_flags[@]}"
  exit 0
fi

# Tests (conformance_test.go) are not part of the engine: they do not change its hash.
sources=()
for file in "$src"/*.go; do [[ $file == *_test.go ]] || sources+=("$file"); done
sum="$( (cat "$src"/go.mod "$src"/go.sum "${sources[@]}" "${BASH_SOURCE[0]}"; go version) | sha256sum | cut -c1-16)"
dir="$SHAPER_CACHE/cel-engine/$sum"
if [ ! -f "$dir/cel-engine.wasm" ]; then
  echo "shaper-gen: building the CEL engine into $dir (minutes the first time)" >&2
  mkdir -p "$dir"
  (cd "$src" && GOOS=js GOARCH=wasm CGO_ENABLED=0 go build "${go_flags[@]}" -o "$dir/cel-engine.wasm.tmp" .)
  cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$dir/wasm_exec.js"
  mv "$dir/cel-engine.wasm.tmp" "$dir/cel-engine.wasm"
fi
ln -sfn "$dir" "$src/out"
