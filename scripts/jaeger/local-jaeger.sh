#!/usr/bin/env bash
# Jaeger all-in-one on this machine, the OTLP receiver bench export
# --otlp-endpoint is tested against (cmd/bench/otlp_test.go); for tests and
# for looking at a run's traces, not for a real site (traces in memory).
#
#   scripts/jaeger/local-jaeger.sh start    build it if missing (scripts/install-jaeger.sh), start it on
#                                           loopback, wait until its query API answers
#   scripts/jaeger/local-jaeger.sh stop     stop it
#   scripts/jaeger/local-jaeger.sh status   say whether it runs and where
#
# Listens on 127.0.0.1 only: OTLP/HTTP on $RB_JAEGER_OTLP (default
# 127.0.0.1:4318), the query API and UI on $RB_JAEGER_QUERY (default
# 127.0.0.1:16686). Idempotent: start on a running Jaeger checks it and
# returns. Variables: RB_JAEGER_DIR (the build, its configuration, log and
# pid file; default /var/tmp/reasonbench-jaeger).
set -euo pipefail
DIR=${RB_JAEGER_DIR:-/var/tmp/reasonbench-jaeger}
OTLP=${RB_JAEGER_OTLP:-127.0.0.1:4318}
QUERY=${RB_JAEGER_QUERY:-127.0.0.1:16686}
BIN=$DIR/bin/jaeger
PIDFILE=$DIR/jaeger.pid
LOG=$DIR/jaeger.log
CONF=$DIR/config.yaml
say() { echo "local-jaeger: $*"; }
die() { echo "local-jaeger: $*" >&2; exit 1; }

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }
answers() { # the query API answers (curl, else python3's urllib)
	if command -v curl >/dev/null 2>&1; then
		curl -fsS --max-time 2 "http://$QUERY/api/services" >/dev/null 2>&1
	else
		python3 -c "import urllib.request; urllib.request.urlopen('http://$QUERY/api/services', timeout=2)" >/dev/null 2>&1
	fi
}

write_config() {
	mkdir -p "$DIR"
	cat > "$CONF" <<YAML
# written by reasonbench scripts/jaeger/local-jaeger.sh: all-in-one in
# memory, every port on loopback
service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: "$QUERY"
    grpc:
      endpoint: "127.0.0.1:16685"
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  healthcheckv2:
    use_v2: true
    http:
      endpoint: "127.0.0.1:13133"
receivers:
  otlp:
    protocols:
      http:
        endpoint: "$OTLP"
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
YAML
}

start() {
	if running && answers; then
		say "running (pid $(cat "$PIDFILE")): OTLP/HTTP http://$OTLP, query http://$QUERY"
		return
	fi
	[ -x "$BIN" ] || "$(dirname "$0")/../install-jaeger.sh"
	write_config
	nohup "$BIN" --config "$CONF" >"$LOG" 2>&1 &
	echo $! > "$PIDFILE"
	for _ in $(seq 1 60); do
		if answers; then
			say "started (pid $(cat "$PIDFILE")): OTLP/HTTP http://$OTLP, query http://$QUERY"
			return
		fi
		running || { tail -20 "$LOG" >&2; die "jaeger exited at start (log: $LOG)"; }
		sleep 0.5
	done
	tail -20 "$LOG" >&2
	die "jaeger did not answer at http://$QUERY within 30 s (log: $LOG)"
}

stop() {
	if running; then
		local pid
		pid=$(cat "$PIDFILE")
		kill "$pid"
		for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
		say "stopped (pid $pid)"
	else
		say "not running"
	fi
	rm -f "$PIDFILE"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status)
	if running && answers; then say "running (pid $(cat "$PIDFILE")): OTLP/HTTP http://$OTLP, query http://$QUERY"
	else say "not running"; exit 1; fi ;;
*) die "usage: $0 start|stop|status" ;;
esac
