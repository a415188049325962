#!/usr/bin/env bash
# Helm v3 for the chart tests (`helm lint`, `helm template`), built from the Go module proxy.
#
#   scripts/helm.sh path
#       Print the path of a `helm` binary: $HELM_PATH, else one on PATH, else the cache dir's
#       (built first when missing). Progress goes to stderr, the path to stdout.
#   scripts/helm.sh fetch [VERSION]
#       Build helm.sh/helm/v3/cmd/helm@VERSION with `go install` into
#       ${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}/helm-VERSION/bin, only when missing.
#       Safe to run concurrently (flock + atomic rename). About 6-11 minutes on 2 cores.
set -euo pipefail

# shellcheck source=lib/go-tool.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/go-tool.sh"

go_tool helm helm.sh/helm/v3/cmd/helm HELM_PATH v3.22.0 '^v3\.[0-9]+\.[0-9]+$' "$@"
