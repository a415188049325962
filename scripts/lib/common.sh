# Shared by every tool script (scripts/kafka.sh, lib/go-tool.sh, lib/apt-tool.sh): the cache dir,
# the error exit and the usage text. Source it after setting TOOL (the script's name in messages)
# and USAGE_LINES (the last line of the script's header comment, its usage text).
# shellcheck shell=bash

CACHE_ROOT="${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}"

die() { echo "$TOOL.sh: $*" >&2; exit 1; }

usage() {
  sed -n "2,${USAGE_LINES:-10}p" "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
