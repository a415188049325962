#!/usr/bin/env bash
# Chromium for the browser tests and the `ui` benchmark: Debian's `chromium` package, driven by
# playwright-core (never `npx playwright install`: it downloads its own browser, which fails here).
#
#   scripts/chromium.sh path
#       Print the Chromium binary: $CHROMIUM_PATH, else /usr/bin/chromium, else one on PATH.
#       Fails (exit 1) when none is installed; `fetch` installs it.
#   scripts/chromium.sh fetch
#       Same, but install Debian's `chromium` with apt-get first when missing (root, or
#       passwordless sudo). Safe to run concurrently: one installer at a time (flock), the others
#       wait and then find the binary. Progress goes to stderr, the path to stdout.
#
# Environment: CHROMIUM_PATH, AGENT_EVAL_CACHE_DIR (where the lock file lives).
set -euo pipefail

CACHE_ROOT="${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}"
DEBIAN_BIN=/usr/bin/chromium

die() { echo "chromium.sh: $*" >&2; exit 1; }

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# The installed binary, or nothing (exit 1).
find_bin() {
  if [[ -n "${CHROMIUM_PATH:-}" ]]; then
    [[ -x "$CHROMIUM_PATH" ]] || die "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable"
    echo "$CHROMIUM_PATH"
    return 0
  fi
  if [[ -x "$DEBIAN_BIN" ]]; then echo "$DEBIAN_BIN"; return 0; fi
  local bin
  for name in chromium chromium-browser; do
    if bin="$(command -v "$name" 2>/dev/null)"; then echo "$bin"; return 0; fi
  done
  return 1
}

path() {
  find_bin || die "Chromium is not installed: run 'scripts/chromium.sh fetch' (installs Debian's chromium package), or set CHROMIUM_PATH"
}

fetch() {
  find_bin && return 0
  command -v apt-get >/dev/null 2>&1 \
    || die "Chromium is missing and apt-get is not available: install Chromium yourself and set CHROMIUM_PATH=/path/to/chromium"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      die "Chromium is missing and installing it needs root: run 'sudo apt-get update && sudo apt-get install -y chromium' (or set CHROMIUM_PATH=/path/to/chromium)"
    fi
  fi
  mkdir -p "$CACHE_ROOT"
  # One installer at a time across test workers; the others wait here, then find the binary.
  exec 9>"$CACHE_ROOT/chromium.lock"
  flock 9
  if find_bin; then flock -u 9; exec 9>&-; return 0; fi

  local log
  log="$(mktemp)"
  echo "chromium.sh: installing Debian's chromium package with apt-get (once)" >&2
  # DPkg::Lock::Timeout: wait for an apt run outside this script instead of failing at once.
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q -y)
  if ! { "${apt[@]}" update && "${apt[@]}" install chromium; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    rm -f "$log"
    die "apt-get install chromium failed (see above)"
  fi
  rm -f "$log"
  flock -u 9
  exec 9>&-
  find_bin || die "chromium is still missing after apt-get install chromium"
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
