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

TOOL=docker-compose
APT_PACKAGE=docker-compose
# --no-install-recommends: the package recommends docker.io (the engine), which `config` does not need.
APT_INSTALL_FLAGS=(--no-install-recommends)
ENV_HINT=DOCKER_COMPOSE_PATH

find_bin() {
  if [[ -n "${DOCKER_COMPOSE_PATH:-}" ]]; then
    [[ -x "$DOCKER_COMPOSE_PATH" ]] || die "DOCKER_COMPOSE_PATH=$DOCKER_COMPOSE_PATH is not an executable"
    echo "$DOCKER_COMPOSE_PATH"
    return 0
  fi
  command -v docker-compose 2>/dev/null && return 0
  return 1
}

# shellcheck source=lib/apt-tool.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt-tool.sh"

main "$@"
