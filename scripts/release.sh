#!/usr/bin/env bash
# Releases shaper-gen and @shaper-gen/generator together, at one version:
#
#   scripts/release.sh <version> [--publish] [--registry <url>] [--no-build]
#
# 1. Sets <version> in package.json, generator/package.json (with the
#    generator's peerDependencies.shaper-gen) and package-lock.json.
# 2. Builds dist/ once (npm run build); --no-build publishes the dist/ there is.
# 3. Publishes shaper-gen, then @shaper-gen/generator (whose peer dependency
#    names it) to --registry (default: npm's configured registry) with the
#    credentials npm has for it. Without --publish this is `npm publish
#    --dry-run`: it prints what each tarball holds and publishes nothing.
# A version already on the registry is skipped, so a release that stopped
# half-way is finished by running the same command again.
#
# `npm publish --ignore-scripts`: the build ran in step 2, and a second one in
# the generator's prepack would give the same files. (`npm publish` by hand
# runs prepack, which builds; the tarballs are the same.)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
root="$(cd "$here/.." && pwd)"

usage="usage: scripts/release.sh <version> [--publish] [--registry <url>] [--no-build]"
version="" publish=0 build=1 registry=()
while (($#)); do
  case "$1" in
    --publish) publish=1 ;;
    --no-build) build=0 ;;
    --registry)
      [[ $# -ge 2 ]] || { echo "release: --registry needs a URL; $usage" >&2; exit 2; }
      registry=(--registry "$2")
      shift
      ;;
    --registry=*) registry=(--registry "${1#--registry=}") ;;
    -*) echo "release: unknown option $1; $usage" >&2; exit 2 ;;
    *)
      [[ -z "$version" ]] || { echo "release: one version only; $usage" >&2; exit 2; }
      version="$1"
      ;;
  esac
  shift
done
semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
[[ -n "$version" ]] || { echo "release: no version; $usage" >&2; exit 2; }
[[ "$version" =~ $semver ]] || { echo "release: $version is not a semantic version (such as 0.2.0); $usage" >&2; exit 2; }

cd "$root"
node - "$version" <<'EOF'
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const version = process.argv[2];
const edit = (file, change) => {
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  const json = JSON.parse(text);
  change(json);
  const edited = `${JSON.stringify(json, null, 2)}\n`;
  if (edited === text) return;
  writeFileSync(file, edited);
  console.log(`release: ${file} set to ${version}`);
};
const generator = (manifest) => {
  manifest.version = version;
  manifest.peerDependencies['shaper-gen'] = version;
};
edit('package.json', (manifest) => (manifest.version = version));
edit('generator/package.json', generator);
edit('package-lock.json', (lock) => {
  lock.version = lock.packages[''].version = version;
  generator(lock.packages['generator']);
});
EOF

if ((build)); then npm run --silent build; fi
for built in dist/bin/shaper-gen.js generator/dist/index.js; do
  [[ -f "$built" ]] || { echo "release: $built is missing: run npm run build (or drop --no-build)" >&2; exit 1; }
done

dry_run=(--dry-run)
((publish)) && dry_run=()
for dir in . generator; do
  name="$(cd "$dir" && npm pkg get name | tr -d '"')"
  if [[ "$(npm view "${registry[@]}" "$name@$version" version 2>/dev/null)" == "$version" ]]; then
    echo "release: $name@$version is already on the registry: skipped"
    continue
  fi
  (cd "$dir" && npm publish --ignore-scripts "${registry[@]}" "${dry_run[@]}")
done
((publish)) || echo "release: dry run, nothing was published; add --publish to publish $version"
