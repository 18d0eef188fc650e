# Sourced by every project script: one place for the cache location, pinned
# tool versions, and a PATH that puts Node 24 and the cached tools first.
# shellcheck shell=bash
SHAPER_CACHE="${SHAPER_GEN_CACHE:-$HOME/.cache/shaper-gen}"
SHAPER_NODE_MAJOR=24
export SHAPER_CACHE
export PATH="$SHAPER_CACHE/bin:$SHAPER_CACHE/node$SHAPER_NODE_MAJOR/node_modules/.bin:$PATH"
SHAPER_HELM_VERSION=v3.22.0
