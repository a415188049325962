#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft) from the jars on Maven Central, for tests and local use.
#
#   scripts/kafka.sh fetch [VERSION]
#       Fetch org.apache.kafka:kafka_2.13:VERSION and its runtime dependencies (plus a logging
#       backend) into ${AGENT_EVAL_CACHE_DIR:-$HOME/.cache/agent-eval}/kafka-VERSION/libs,
#       only when missing. Safe to run concurrently (flock + atomic rename).
#   scripts/kafka.sh start [VERSION] --port P --dir D [--controller-port C] [--set key=value]...
#       Format D as a KRaft storage dir (once) and exec the broker in the foreground, listening
#       on 127.0.0.1:P (clients) and 127.0.0.1:C (controller; a free port when not given).
#
# Environment: AGENT_EVAL_CACHE_DIR, KAFKA_HEAP_OPTS (default -Xms128m -Xmx512m), KAFKA_JVM_OPTS.
set -euo pipefail

DEFAULT_VERSION=3.9.1
TOOL=kafka
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

require() {
  local missing=()
  for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
  if ((${#missing[@]})); then
    die "missing required tool(s): ${missing[*]} (install a JDK >= 17 for java, Apache Maven >= 3.6 for mvn, and put them on PATH)"
  fi
}

libs_dir() { echo "$CACHE_ROOT/kafka-$1/libs"; }

# The logging backend the broker distribution ships: reload4j up to 3.x, log4j2 from 4.0 on.
# kafka_2.13's pom declares only slf4j-api; without a binding the broker logs nothing at all.
logging_deps() {
  if [[ "$1" == 3.* || "$1" == 2.* ]]; then
    dep ch.qos.reload4j reload4j 1.2.25
    dep org.slf4j slf4j-reload4j 1.7.36
  else
    dep org.apache.logging.log4j log4j-api 2.24.3
    dep org.apache.logging.log4j log4j-core 2.24.3
    dep org.apache.logging.log4j log4j-slf4j-impl 2.24.3
  fi
}

dep() {
  printf '    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n' "$1" "$2" "$3"
}

fetch() {
  local version="$1" libs
  libs="$(libs_dir "$version")"
  [[ -d "$libs" ]] && return 0
  require java mvn
  mkdir -p "$CACHE_ROOT"
  # One fetcher per version at a time; the others wait, then find the libs dir in place.
  exec 9>"$CACHE_ROOT/kafka-$version.lock"
  flock 9
  if [[ -d "$libs" ]]; then flock -u 9; exec 9>&-; return 0; fi

  FETCH_WORK="$(mktemp -d "$CACHE_ROOT/.kafka-$version.XXXXXX")"
  trap 'rm -rf "${FETCH_WORK:-}"' EXIT
  local work="$FETCH_WORK"
  cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>agent-eval</groupId>
  <artifactId>kafka-broker-libs</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
$(dep org.apache.kafka kafka_2.13 "$version")
$(logging_deps "$version")
  </dependencies>
</project>
EOF
  echo "kafka.sh: fetching Apache Kafka $version broker jars with Maven into $libs" >&2
  if ! mvn -B -q -f "$work/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$work/libs" >"$work/mvn.log" 2>&1; then
    cat "$work/mvn.log" >&2
    die "mvn could not fetch org.apache.kafka:kafka_2.13:$version (does that version exist on Maven Central?)"
  fi
  [[ -f "$work/libs/kafka_2.13-$version.jar" ]] || die "kafka_2.13-$version.jar missing after fetch"
  mkdir -p "$(dirname "$libs")"
  # rename(2) is atomic: a reader sees either no libs dir or a complete one.
  mv -T "$work/libs" "$libs"
  rm -rf "$work"
  FETCH_WORK=""
  flock -u 9
  exec 9>&-
}

# A port nothing listens on; a connect to it is refused. Racy like any free-port probe, but the
# broker fails loudly on a taken port and callers that need certainty pass --controller-port.
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  die "no free port found"
}

# Kafka's Uuid text form: 16 random bytes, base64url without padding; Kafka's own generator
# also avoids a leading '-' because command lines would read it as an option.
cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
    [[ "$id" != -* ]] && { echo "$id"; return 0; }
  done
}

write_config() {
  local dir="$1" port="$2" cport="$3"
  shift 3
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# One node: nobody else will join, so do not hold the first rebalance of a group for 3 s.
group.initial.rebalance.delay.ms=0
EOF
  for kv in "$@"; do echo "$kv" >>"$dir/server.properties"; done
  # Both logging backends read their own file; only the one on the classpath looks.
  cat >"$dir/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.org.apache.kafka.storage.internals.log=WARN
EOF
  cat >"$dir/log4j2.properties" <<'EOF'
appender.stdout.type=Console
appender.stdout.name=STDOUT
appender.stdout.layout.type=PatternLayout
appender.stdout.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=INFO
rootLogger.appenderRef.stdout.ref=STDOUT
EOF
}

start() {
  local version="$1"
  shift
  local port="" dir="" cport="" overrides=()
  while (($#)); do
    case "$1" in
      --port) port="${2:?--port needs a value}"; shift 2 ;;
      --dir) dir="${2:?--dir needs a value}"; shift 2 ;;
      --controller-port) cport="${2:?--controller-port needs a value}"; shift 2 ;;
      --set) overrides+=("${2:?--set needs key=value}"); shift 2 ;;
      *) die "unknown option: $1" ;;
    esac
  done
  [[ -n "$port" && -n "$dir" ]] || die "start needs --port P and --dir D"
  require java
  fetch "$version"
  [[ -n "$cport" ]] || cport="$(free_port)"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  write_config "$dir" "$port" "$cport" ${overrides[@]+"${overrides[@]}"}

  local libs
  libs="$(libs_dir "$version")"
  local jvm=(${KAFKA_HEAP_OPTS:--Xms128m -Xmx512m} ${KAFKA_JVM_OPTS:-} -XX:+UseSerialGC -Djava.awt.headless=true
    "-Dlog4j.configuration=file:$dir/log4j.properties" "-Dlog4j2.configurationFile=$dir/log4j2.properties"
    -cp "$libs/*")
  # Format once: a restart on the same dir keeps topics, offsets and the cluster id.
  if [[ ! -f "$dir/data/meta.properties" ]]; then
    java "${jvm[@]}" kafka.tools.StorageTool format -t "$(cluster_id)" -c "$dir/server.properties" >&2 \
      || die "formatting $dir/data failed"
  fi
  exec java "${jvm[@]}" kafka.Kafka "$dir/server.properties"
}

main() {
  local cmd="${1:-}"
  [[ -n "$cmd" ]] || usage
  shift
  local version="$DEFAULT_VERSION"
  if (($#)) && [[ "$1" != --* ]]; then version="$1"; shift; fi
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "not a Kafka version: $version"
  case "$cmd" in
    fetch) (($# == 0)) || die "fetch takes only a VERSION"; fetch "$version" ;;
    start) start "$version" "$@" ;;
    *) usage ;;
  esac
}

main "$@"
