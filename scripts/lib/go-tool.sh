# Shared by scripts/temporal.sh and scripts/helm.sh: a Go command-line tool built once with
# `go install` from the Go module proxy into the cache dir, and found again afterwards.
# A script sources it and calls `go_tool` with what tells its tool apart (below).
# shellcheck shell=bash

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bin_path() { echo "$CACHE_ROOT/$TOOL-$1/bin/$TOOL"; }

# Builds $TOOL_PACKAGE@$1 into the cache unless it is there. Safe to run concurrently (flock +
# atomic rename): a reader sees either no bin dir or a complete one.
fetch() {
  local version="$1" bin dir
  bin="$(bin_path "$version")"
  [[ -x "$bin" ]] && return 0
  command -v go >/dev/null 2>&1 || die "go is required to build $TOOL (install Go and put it on PATH)"
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/$TOOL-$version.lock"
  flock 9
  if [[ -x "$bin" ]]; then flock -u 9; exec 9>&-; return 0; fi

  FETCH_WORK="$(mktemp -d "$CACHE_ROOT/.$TOOL-$version.XXXXXX")"
  trap 'rm -rf "${FETCH_WORK:-}"' EXIT
  echo "$TOOL.sh: building $TOOL_PACKAGE@$version with go install (several minutes, once)" >&2
  if ! GOBIN="$FETCH_WORK/bin" GOFLAGS="${GOFLAGS:--buildvcs=false}" \
      go install "$TOOL_PACKAGE@$version" >"$FETCH_WORK/go.log" 2>&1; then
    cat "$FETCH_WORK/go.log" >&2
    die "go install $TOOL_PACKAGE@$version failed"
  fi
  [[ -x "$FETCH_WORK/bin/$TOOL" ]] || die "$TOOL binary missing after go install"
  dir="$(dirname "$(dirname "$bin")")"
  mkdir -p "$dir"
  mv -T "$FETCH_WORK/bin" "$dir/bin"
  rm -rf "$FETCH_WORK"
  FETCH_WORK=""
  flock -u 9
  exec 9>&-
}

# The binary to use: $TOOL_ENV's, else one on PATH, else the cache's (built first when missing).
path() {
  local override="${!TOOL_ENV:-}"
  if [[ -n "$override" ]]; then
    [[ -x "$override" ]] || die "$TOOL_ENV=$override is not an executable"
    echo "$override"
    return 0
  fi
  if command -v "$TOOL" >/dev/null 2>&1; then command -v "$TOOL"; return 0; fi
  fetch "$DEFAULT_VERSION"
  bin_path "$DEFAULT_VERSION"
}

# `path` or `fetch [VERSION]`; VERSION must match $VERSION_PATTERN.
main() {
  local cmd="${1:-}"
  [[ -n "$cmd" ]] || usage
  shift
  case "$cmd" in
    path) (($# == 0)) || die "path takes no arguments"; path ;;
    fetch)
      local version="${1:-$DEFAULT_VERSION}"
      [[ "$version" =~ $VERSION_PATTERN ]] || die "not a $TOOL version: $version"
      fetch "$version"
      bin_path "$version"
      ;;
    *) usage ;;
  esac
}

# go_tool NAME PACKAGE OVERRIDE_ENV DEFAULT_VERSION VERSION_PATTERN [ARGS...]: runs `main ARGS` for
# the tool NAME (its binary's name, its cache dir's and the messages'), built from the module path
# PACKAGE; OVERRIDE_ENV names an env var that points at a binary to use instead.
go_tool() {
  TOOL="$1" TOOL_PACKAGE="$2" TOOL_ENV="$3" DEFAULT_VERSION="$4" VERSION_PATTERN="$5"
  shift 5
  main "$@"
}
