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

DEFAULT_VERSION=v1.5.1
CACHE_ROOT="${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}"

die() { echo "temporal.sh: $*" >&2; exit 1; }

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

bin_path() { echo "$CACHE_ROOT/temporal-$1/bin/temporal"; }

fetch() {
  local version="$1" bin dir
  bin="$(bin_path "$version")"
  [[ -x "$bin" ]] && return 0
  command -v go >/dev/null 2>&1 || die "go is required to build the Temporal CLI (install Go >= 1.23 and put it on PATH)"
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/temporal-$version.lock"
  flock 9
  if [[ -x "$bin" ]]; then flock -u 9; exec 9>&-; return 0; fi

  FETCH_WORK="$(mktemp -d "$CACHE_ROOT/.temporal-$version.XXXXXX")"
  trap 'rm -rf "${FETCH_WORK:-}"' EXIT
  echo "temporal.sh: building the Temporal CLI $version with go install (several minutes, once)" >&2
  if ! GOBIN="$FETCH_WORK/bin" GOFLAGS="${GOFLAGS:--buildvcs=false}" \
      go install "github.com/temporalio/cli/cmd/temporal@$version" >"$FETCH_WORK/go.log" 2>&1; then
    cat "$FETCH_WORK/go.log" >&2
    die "go install github.com/temporalio/cli/cmd/temporal@$version failed"
  fi
  [[ -x "$FETCH_WORK/bin/temporal" ]] || die "temporal binary missing after go install"
  dir="$(dirname "$(dirname "$bin")")"
  mkdir -p "$dir"
  # rename(2) is atomic: a reader sees either no bin dir or a complete one.
  mv -T "$FETCH_WORK/bin" "$dir/bin"
  rm -rf "$FETCH_WORK"
  FETCH_WORK=""
  flock -u 9
  exec 9>&-
}

path() {
  if [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
    [[ -x "$TEMPORAL_CLI_PATH" ]] || die "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable"
    echo "$TEMPORAL_CLI_PATH"
    return 0
  fi
  if command -v temporal >/dev/null 2>&1; then command -v temporal; return 0; fi
  fetch "$DEFAULT_VERSION"
  bin_path "$DEFAULT_VERSION"
}

main() {
  local cmd="${1:-}"
  [[ -n "$cmd" ]] || usage
  shift
  case "$cmd" in
    path) (($# == 0)) || die "path takes no arguments"; path ;;
    fetch)
      local version="${1:-$DEFAULT_VERSION}"
      [[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "not a Temporal CLI version: $version"
      fetch "$version"
      bin_path "$version"
      ;;
    *) usage ;;
  esac
}

main "$@"
