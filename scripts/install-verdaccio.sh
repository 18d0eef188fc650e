#!/usr/bin/env bash
# Installs the pinned Verdaccio that test/e2e/scaffold/registry-install.test.ts
# starts on loopback, into $SHAPER_CACHE/tools/verdaccio-<version>/ (kept out of
# the repository's package.json: its dependencies would also be installed by the
# image's build stage, whose npm 11.6.2 fails on one of them, sshpk).
# The npm registry mirror here serves no `cjs` dist-tag of node-fetch, which
# Verdaccio's audit plugin asks for: an override pins the release that tag names
# (2.6.7, per verdaccio/verdaccio pull request 5293).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
version=6.10.4
dir="$SHAPER_CACHE/tools/verdaccio-$version"
if [ -x "$dir/node_modules/verdaccio/bin/verdaccio" ] || [ -f "$dir/node_modules/verdaccio/bin/verdaccio" ]; then exit 0; fi
mkdir -p "$dir"
cat > "$dir/package.json" <<JSON
{ "private": true, "dependencies": { "verdaccio": "$version" }, "overrides": { "verdaccio-audit": { "node-fetch": "2.6.7" } } }
JSON
echo "shaper-gen: installing Verdaccio $version into $dir (once)" >&2
(cd "$dir" && npm install --no-audit --no-fund --no-save >/dev/null)
