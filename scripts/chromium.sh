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

TOOL=chromium
APT_PACKAGE=chromium
APT_INSTALL_FLAGS=()
ENV_HINT=CHROMIUM_PATH=/path/to/chromium
DEBIAN_BIN=/usr/bin/chromium

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

# shellcheck source=lib/apt-tool.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt-tool.sh"

main "$@"
