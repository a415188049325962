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

DEFAULT_VERSION=v3.22.0
CACHE_ROOT="${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}"

die() { echo "helm.sh: $*" >&2; exit 1; }

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

bin_path() { echo "$CACHE_ROOT/helm-$1/bin/helm"; }

fetch() {
  local version="$1" bin dir
  bin="$(bin_path "$version")"
  [[ -x "$bin" ]] && return 0
  command -v go >/dev/null 2>&1 || die "go is required to build Helm (install Go >= 1.24 and put it on PATH)"
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/helm-$version.lock"
  flock 9
  if [[ -x "$bin" ]]; then flock -u 9; exec 9>&-; return 0; fi

  FETCH_WORK="$(mktemp -d "$CACHE_ROOT/.helm-$version.XXXXXX")"
  trap 'rm -rf "${FETCH_WORK:-}"' EXIT
  echo "helm.sh: building Helm $version with go install (several minutes, once)" >&2
  if ! GOBIN="$FETCH_WORK/bin" GOFLAGS="${GOFLAGS:--buildvcs=false}" \
      go install "helm.sh/helm/v3/cmd/helm@$version" >"$FETCH_WORK/go.log" 2>&1; then
    cat "$FETCH_WORK/go.log" >&2
    die "go install helm.sh/helm/v3/cmd/helm@$version failed"
  fi
  [[ -x "$FETCH_WORK/bin/helm" ]] || die "helm binary missing after go install"
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
  if [[ -n "${HELM_PATH:-}" ]]; then
    [[ -x "$HELM_PATH" ]] || die "HELM_PATH=$HELM_PATH is not an executable"
    echo "$HELM_PATH"
    return 0
  fi
  if command -v helm >/dev/null 2>&1; then command -v helm; return 0; fi
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
      [[ "$version" =~ ^v3\.[0-9]+\.[0-9]+$ ]] || die "not a Helm v3 version: $version"
      fetch "$version"
      bin_path "$version"
      ;;
    *) usage ;;
  esac
}

main "$@"
