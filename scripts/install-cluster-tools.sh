#!/usr/bin/env bash
# Builds the real components the cluster suite (kindEnv) runs — etcd,
# kube-apiserver, kubelet, kube-controller-manager, kube-scheduler, kube-proxy
# and cert-manager — from the Go module proxy into $SHAPER_CACHE/tools, pinned,
# once; a warm run only re-links them. Also the kube-apiserver of the oldest
# Kubernetes minor the generated configurations support. Each build prints how
# long it took. Also the Debian packages the harness
# needs (iproute2 for network namespaces). The node's runtime packages and
# images: install-node-images.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"

# The pinned versions: scripts/cluster/versions.env (support/kindenv/tools.ts reads them too).
. "$here/cluster/versions.env"

if ! command -v ip >/dev/null || ! command -v openssl >/dev/null; then
  apt-get install -y -qq iproute2 openssl >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq iproute2 openssl >/dev/null; }
fi

# build_wrapped <binary> <dir> <package> [extra -ldflags]: the wrapper module
# (go.mod and main.go already written into <dir>/src) is built with CGO off into <dir>.
build_wrapped() {
  local name="$1" dir="$2" package="$3" ldflags="${4:-}"
  (cd "$dir/src" && { go mod tidy >/dev/null 2>&1 || go mod tidy; } && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $ldflags" -o "$dir/$name.tmp" "$package" && mv "$dir/$name.tmp" "$dir/$name")
}

link() {
  mkdir -p "$SHAPER_CACHE/bin"
  ln -sfn "$1" "$SHAPER_CACHE/bin/$(basename "$1")"
}

# etcd: its main module carries replace directives, so `go install` refuses it;
# a one-file wrapper module calls the server's own entry point.
etcd_dir="$SHAPER_CACHE/tools/etcd-$ETCD_VERSION"
if [ ! -x "$etcd_dir/etcd" ]; then
  echo "shaper-gen: building etcd $ETCD_VERSION (about a minute)" >&2
  started=$SECONDS
  mkdir -p "$etcd_dir/src"
  cat > "$etcd_dir/src/go.mod" <<MOD
module shaper-gen.local/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
  cat > "$etcd_dir/src/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  build_wrapped etcd "$etcd_dir" .
  echo "shaper-gen: built etcd $ETCD_VERSION in $((SECONDS - started)) s" >&2
fi
link "$etcd_dir/etcd"

# Kubernetes' own binaries (kube-apiserver, and for the node: kubelet,
# kube-controller-manager, kube-scheduler, kube-proxy), one version, built in
# one go so they share the compile. k8s.io/kubernetes replaces every staging
# module k8s.io/* with a local path, so the wrapper pins each of them to the
# matching v0.X.Y.
# build_kubernetes <version> <command>...: builds those of the commands missing
# from $SHAPER_CACHE/tools/kubernetes-<version>/ and links each into bin/ under
# <command><link suffix> (KUBE_LINK_SUFFIX, default none).
build_kubernetes() {
  local version="$1"; shift
  local kube_dir="$SHAPER_CACHE/tools/kubernetes-$version" missing="" command
  for command in "$@"; do [ -x "$kube_dir/$command" ] || missing="$missing $command"; done
  if [ -n "$missing" ]; then
    echo "shaper-gen: building Kubernetes $version:$missing (about 8 minutes on 2 cores from an empty Go build cache, once)" >&2
    local started=$SECONDS
    mkdir -p "$kube_dir/src"
    local staging_version="v0.${version#v1.}" gomod
    gomod="$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
    {
      echo "module shaper-gen.local/kubernetes"
      echo
      echo "go 1.25"
      echo
      echo "require k8s.io/kubernetes $version"
      echo
      echo "replace ("
      sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$gomod" | sort -u | while read -r module; do
        echo "	$module => $module $staging_version"
      done
      echo ")"
    } > "$kube_dir/src/go.mod"
    {
      echo "//go:build tools"
      echo
      echo "package tools"
      echo
      for command in "$@"; do echo "import _ \"k8s.io/kubernetes/cmd/$command\""; done
    } > "$kube_dir/src/tools.go"
    # Stamp the version as Kubernetes' own build does: clients (helm's kubeVersion
    # check) and the kubelet's version skew check read it.
    local minor="${version#v1.}"; minor="${minor%%.*}"
    local version_ldflags="-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
    local packages=""
    for command in $missing; do packages="$packages k8s.io/kubernetes/cmd/$command"; done
    (cd "$kube_dir/src" && { go mod tidy >/dev/null 2>&1 || go mod tidy; } \
      && mkdir -p "$kube_dir/out" \
      && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $version_ldflags" -o "$kube_dir/out/" $packages)
    for command in $missing; do mv "$kube_dir/out/$command" "$kube_dir/$command"; done
    echo "shaper-gen: built Kubernetes $version:$missing in $((SECONDS - started)) s" >&2
  fi
  for command in "$@"; do
    mkdir -p "$SHAPER_CACHE/bin"
    ln -sfn "$kube_dir/$command" "$SHAPER_CACHE/bin/$command${KUBE_LINK_SUFFIX:-}"
  done
}
build_kubernetes "$KUBERNETES_VERSION" kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl
# The oldest supported minor: the API server alone (a bare control plane with
# the current etcd; test/cluster/oldest-kubernetes.test.ts), linked as
# kube-apiserver-oldest.
KUBE_LINK_SUFFIX=-oldest build_kubernetes "$OLDEST_KUBERNETES_VERSION" kube-apiserver

# cert-manager: its cmd/* modules are not on the Go module proxy (404), but its
# controllers, issuers and CA injector are library packages of the root module.
# scripts/cluster/cert-manager/main.go (ours) runs them; its CRDs come from the
# same module version.
cm_dir="$SHAPER_CACHE/tools/cert-manager-$CERT_MANAGER_VERSION"
main_sum="$(sha256sum "$here/cluster/cert-manager/main.go" | cut -c1-12)"
if [ ! -x "$cm_dir/shaper-cert-manager-$main_sum" ]; then
  echo "shaper-gen: building cert-manager $CERT_MANAGER_VERSION controllers and cainjector (about 3 minutes, once)" >&2
  started=$SECONDS
  mkdir -p "$cm_dir/src" "$cm_dir/crds"
  cp "$here/cluster/cert-manager/main.go" "$cm_dir/src/main.go"
  cat > "$cm_dir/src/go.mod" <<MOD
module shaper-gen.local/cert-manager

go 1.26.0

require github.com/cert-manager/cert-manager $CERT_MANAGER_VERSION
MOD
  build_wrapped "shaper-cert-manager-$main_sum" "$cm_dir" .
  module_dir="$(go mod download -json "github.com/cert-manager/cert-manager@$CERT_MANAGER_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')"
  cp "$module_dir"/deploy/crds/cert-manager.io_*.yaml "$cm_dir/crds/"
  chmod u+w "$cm_dir"/crds/*.yaml
  echo "shaper-gen: built cert-manager $CERT_MANAGER_VERSION in $((SECONDS - started)) s" >&2
fi
ln -sfn "$cm_dir/shaper-cert-manager-$main_sum" "$SHAPER_CACHE/bin/shaper-cert-manager"
ln -sfn "$cm_dir/crds" "$SHAPER_CACHE/cert-manager-crds"
