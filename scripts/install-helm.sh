#!/usr/bin/env bash
# Installs the pinned helm that the chart tests and kindEnv use, built from the
# Go module proxy into $SHAPER_CACHE (no download from get.helm.sh needed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
. "$here/go-tool.sh"
module="helm.sh/helm/v3"
# helm's release build stamps its version and the Kubernetes version it
# assumes for `helm template` (Capabilities.KubeVersion, kubeVersion checks);
# a plain `go install` would leave v1.20. Stamp them the way its Makefile does.
gomod="$(go mod download -json "$module@$SHAPER_HELM_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
k8s_minor="$(sed -n 's#^\s*k8s.io/client-go v0\.\([0-9]*\)\..*#\1#p' "$gomod" | head -n1)"
ldflags="-X $module/internal/version.version=$SHAPER_HELM_VERSION"
for pkg in pkg/lint/rules pkg/chartutil; do
  ldflags+=" -X $module/$pkg.k8sVersionMajor=1 -X $module/$pkg.k8sVersionMinor=$k8s_minor"
done
go_tool_install helm "helm-$SHAPER_HELM_VERSION-k8s1.$k8s_minor" "$module/cmd/helm@$SHAPER_HELM_VERSION" "$ldflags"
