# Sourced helper: build a Go command once into the cache and link it into
# $SHAPER_CACHE/bin. Builds go to a versioned directory, so bumping a pin
# rebuilds and a warm cache costs nothing.
# shellcheck shell=bash

# go_tool_install <name> <versioned-dir-name> <go install target> [extra -ldflags]
go_tool_install() {
  local name="$1" dir="$SHAPER_CACHE/tools/$2" target="$3" ldflags="${4:-}"
  if [ ! -x "$dir/$name" ]; then
    echo "shaper-gen: building $name ($target) into $dir" >&2
    mkdir -p "$dir"
    GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -ldflags="-s -w $ldflags" "$target"
  fi
  mkdir -p "$SHAPER_CACHE/bin"
  ln -sfn "$dir/$name" "$SHAPER_CACHE/bin/$name"
}
