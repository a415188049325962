# Shared by scripts/chromium.sh and scripts/docker-compose.sh: a tool from a Debian package,
# installed with apt-get when missing. Source it after setting TOOL (messages, lock name),
# APT_PACKAGE, APT_INSTALL_FLAGS (an array, may be empty), ENV_HINT (the variable that names a
# binary instead), and defining find_bin (prints the binary, or returns 1).
# shellcheck shell=bash

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

path() {
  find_bin || die "$TOOL is not installed: run 'scripts/$TOOL.sh fetch' (installs Debian's $APT_PACKAGE package), or set $ENV_HINT"
}

# Installs $APT_PACKAGE unless find_bin finds the tool (root, or passwordless sudo). One installer
# at a time across test workers (flock); the others wait here, then find the binary.
fetch() {
  find_bin && return 0
  command -v apt-get >/dev/null 2>&1 \
    || die "$TOOL is missing and apt-get is not available: install it yourself and set $ENV_HINT"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      die "$TOOL is missing and installing it needs root: run 'sudo apt-get update && sudo apt-get install -y $APT_PACKAGE' (or set $ENV_HINT)"
    fi
  fi
  mkdir -p "$CACHE_ROOT"
  exec 9>"$CACHE_ROOT/$TOOL.lock"
  flock 9
  if find_bin; then flock -u 9; exec 9>&-; return 0; fi

  local log
  log="$(mktemp)"
  echo "$TOOL.sh: installing Debian's $APT_PACKAGE package with apt-get (once)" >&2
  # DPkg::Lock::Timeout: wait for an apt run outside this script instead of failing at once.
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q -y)
  if ! { "${apt[@]}" update && "${apt[@]}" install "${APT_INSTALL_FLAGS[@]}" "$APT_PACKAGE"; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    rm -f "$log"
    die "apt-get install $APT_PACKAGE failed (see above)"
  fi
  rm -f "$log"
  flock -u 9
  exec 9>&-
  find_bin || die "$TOOL is still missing after apt-get install $APT_PACKAGE"
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
