#!/usr/bin/env bash
# The Temporal CLI (its dev server embeds Temporal Server), built from the Go module proxy.
#
#   scripts/temporal.sh path
#       Print the path of a `temporal` binary: $TEMPORAL_CLI_PATH, else one on PATH, else the
#       cache dir's (built first when missing). Progress goes to stderr, the path to stdout.
#   scripts/temporal.sh fetch [VERSION]
#       Build github.com/temporalio/cli/cmd/temporal@VERSION with `go install` into
#       ${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}/temporal-VERSION/bin, only when missing.
#       Safe to run concurrently (flock + atomic rename). About 6-11 minutes on 2 cores.
#
# v1.5.1 (Temporal Server 1.29.1) is the newest release that builds with `go install`: later ones
# carry a replace directive to a nested module that the module zip lacks.
set -euo pipefail

# shellcheck source=lib/go-tool.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/go-tool.sh"

go_tool temporal github.com/temporalio/cli/cmd/temporal TEMPORAL_CLI_PATH v1.5.1 '^v[0-9]+\.[0-9]+\.[0-9]+$' "$@"
