#!/usr/bin/env bash
# docker-compose for the Compose file test: `docker-compose config` parses and validates
# deploy/compose/docker-compose.yml without a container engine.
#
#   scripts/docker-compose.sh path
#       Print a Compose binary: $DOCKER_COMPOSE_PATH, else `docker-compose` on PATH.
#       Fails (exit 1) when none is installed; `fetch` installs it.
#   scripts/docker-compose.sh fetch
#       Same, but install Debian's `docker-compose` package with apt-get first when missing
#       (root, or passwordless sudo). Safe to run concurrently (flock). Progress goes to stderr,
#       the path to stdout.
#
# Environment: DOCKER_COMPOSE_PATH, AGENT_EVAL_CACHE_DIR (where the lock file lives).
set -euo pipefail

CACHE_ROOT="${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}"

die() { echo "docker-compose.sh: $*" >&2; exit 1; }

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

find_bin() {
  if [[ -n "${DOCKER_COMPOSE_PATH:-}" ]]; then
    [[ -x "$DOCKER_COMPOSE_PATH" ]] || die "DOCKER_COMPOSE_PATH=$DOCKER_COMPOSE_PATH is not an executable"
    echo "$DOCKER_COMPOSE_PATH"
    return 0
  fi
  command -v docker-compose 2>/dev/null && return 0
  return 1
}

path() {
  find_bin || die "docker-compose is not installed: run 'scripts/docker-compose.sh fetch' (installs Debian's docker-compose package), or set DOCKER_COMPOSE_PATH"
}

fetch() {
  find_bin && return 0
  command -v apt-get >/dev/null 2>&1 \
    || die "docker-compose is missing and apt-get is not available: install it yourself and set DOCKER_COMPOSE_PATH"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      die "docker-compose is missing and installing it needs root: run 'sudo apt-get install -y docker-compose' (or set DOCKER_COMPOSE_PATH)"
    fi
  fi
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/docker-compose.lock"
  flock 9
  if find_bin; then flock -u 9; exec 9>&-; return 0; fi

  local log
  log="$(mktemp)"
  echo "docker-compose.sh: installing Debian's docker-compose package with apt-get (once)" >&2
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q -y)
  # --no-install-recommends: the package recommends docker.io (the engine), which `config` does not need.
  if ! { "${apt[@]}" update && "${apt[@]}" install --no-install-recommends docker-compose; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    rm -f "$log"
    die "apt-get install docker-compose failed (see above)"
  fi
  rm -f "$log"
  flock -u 9
  exec 9>&-
  find_bin || die "docker-compose is still missing after apt-get install docker-compose"
}

main() {
  local cmd="${1:-}"
  [[ -n "$cmd" ]] || usage
  shift
  (($# == 0)) || die "$cmd takes no arguments"
  case "$cmd" in
    path) path ;;
    fetch) fetch ;;
    *) usage ;;
  esac
}

main "$@"
