#!/usr/bin/env bash
# Installs the pinned helm that the chart tests and kindEnv use, built from the
# Go module proxy into $SHAPER_CACHE (no download from get.helm.sh needed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/env.sh"
. "$here/go-tool.sh"
go_tool_install helm "helm-$SHAPER_HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$SHAPER_HELM_VERSION"
