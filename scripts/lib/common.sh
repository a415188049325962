# Shared by every tool script (scripts/kafka.sh, lib/go-tool.sh, lib/apt-tool.sh): the cache dir,
# the error exit and the usage text (the script's header comment). Source it after setting TOOL
# (the script's name in messages).
# shellcheck shell=bash

CACHE_ROOT="${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}"

die() { echo "$TOOL.sh: $*" >&2; exit 1; }

usage() {
  awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
}
