#!/usr/bin/env bash
# The benchmark of issue 2 (called by `make bench`; never part of `make test`).
#
# relaydeckd (release build) and Debian's nginx (one worker, return 200 with the same JSON
# bodies and Content-Type) on loopback ports, driven by wrk with keep-alive in the same
# run, alternating ours and nginx, median of BENCH_RUNS runs each. Also the resident memory
# of relaydeckd after start and with BENCH_IDLE idle keep-alive connections open.
# Prints a Markdown table and writes it to bench/results/latest.md.
#
# Settings (environment): RELAYDECKD (binary, default .build/release/relaydeckd),
# BENCH_DURATION (10s), BENCH_CONNECTIONS (50), BENCH_RUNS (3), BENCH_IDLE (10000).
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY=${RELAYDECKD:-.build/release/relaydeckd}
DURATION=${BENCH_DURATION:-10s}
CONNECTIONS=${BENCH_CONNECTIONS:-50}
RUNS=${BENCH_RUNS:-3}
IDLE=${BENCH_IDLE:-10000}
PYTHON=${PYTHON:-python3}

for tool in wrk nginx curl "$PYTHON"; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench installs it)" >&2; exit 1; }
done
[ -x "$BINARY" ] || { echo "bench: $BINARY is missing (make build)" >&2; exit 1; }

# 10,000 sockets here and as many in the server (which inherits the limit), plus slack.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((IDLE + 1024)) ]; then
    echo "bench: ulimit -n is $(ulimit -n), too low for $IDLE idle connections" >&2
    exit 1
fi

WORK=$(mktemp -d /tmp/relaydeck-bench.XXXXXX)
SERVER_PID="" NGINX_PID="" IDLE_PID=""
cleanup() {
    for pid in $IDLE_PID $NGINX_PID $SERVER_PID; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in $IDLE_PID $NGINX_PID $SERVER_PID; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

rss_kb() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

mb() {
    awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'
}

# --- relaydeckd --------------------------------------------------------------------------
# info, not debug: a log line per request would measure the log, not the server. The rate
# limit per credential is raised out of the way of wrk.
LISTEN=127.0.0.1:0 DATABASE_PATH="$WORK/bench.db" LOG_LEVEL=info \
RATE_LIMIT_REQUESTS_PER_MINUTE=1000000 MAX_CONNECTIONS=$((IDLE + 1000)) \
    "$BINARY" 2>"$WORK/relaydeckd.log" &
SERVER_PID=$!
OURS=""
for _ in $(seq 200); do
    OURS=$(sed -n 's/.* listening address=\(127\.0\.0\.1:[0-9]*\).*/\1/p' "$WORK/relaydeckd.log" | head -n1)
    [ -n "$OURS" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/relaydeckd.log" >&2; exit 1; }
    sleep 0.05
done
[ -n "$OURS" ] || { echo "bench: relaydeckd did not start" >&2; cat "$WORK/relaydeckd.log" >&2; exit 1; }
sleep 0.5
RSS_START=$(rss_kb "$SERVER_PID")

TOKEN=$(curl -sS --fail -X POST -H 'Content-Type: application/json' --data '{}' "http://$OURS/v1/accounts" |
    "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["token"])')
curl -sS --fail -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    --data '{"label": "bench"}' "http://$OURS/v1/keys"
HEALTH_BODY=$(curl -sS --fail "http://$OURS/health")
KEYS_BODY=$(curl -sS --fail -H "Authorization: Bearer $TOKEN" "http://$OURS/v1/keys")

# --- nginx, with its own prefix and configuration (never the system's) -------------------
NGINX_PORT=$(free_port)
NGINX="127.0.0.1:$NGINX_PORT"
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
nginx_string() {  # the body as an nginx single-quoted string ($ would start a variable)
    "$PYTHON" -c 'import sys; b = sys.argv[1]; assert "$" not in b; print("\x27" + b.replace("\\", "\\\\").replace("\x27", "\\\x27") + "\x27")' "$1"
}
cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process on;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_timeout 75s;
    keepalive_requests 10000000;
    client_body_temp_path $WORK/nginx/tmp/body;
    proxy_temp_path $WORK/nginx/tmp/proxy;
    fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
    scgi_temp_path $WORK/nginx/tmp/scgi;
    server {
        listen $NGINX;
        location = /health {
            default_type application/json;
            return 200 $(nginx_string "$HEALTH_BODY");
        }
        location = /v1/keys {
            default_type application/json;
            return 200 $(nginx_string "$KEYS_BODY");
        }
    }
}
EOF
nginx -p "$WORK/nginx" -e "$WORK/nginx/logs/error.log" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
for _ in $(seq 100); do
    curl -s -o /dev/null "http://$NGINX/health" && break
    sleep 0.05
done
[ "$(curl -sS "http://$NGINX/health")" = "$HEALTH_BODY" ] || { echo "bench: nginx did not start" >&2; exit 1; }
[ "$(curl -sS "http://$NGINX/v1/keys")" = "$KEYS_BODY" ]

# --- wrk ---------------------------------------------------------------------------------
requests_per_second() {  # URL -> requests/s
    wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -H "Authorization: Bearer $TOKEN" "$1" |
        awk '/^Requests\/sec:/ { print $2 }'
}

median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A SAMPLES
for run in $(seq "$RUNS"); do
    for path in /health /v1/keys; do
        for side in ours nginx; do
            address=$([ $side = ours ] && echo "$OURS" || echo "$NGINX")
            rps=$(requests_per_second "http://$address$path")
            [ -n "$rps" ] || { echo "bench: wrk gave no figure for $side $path" >&2; exit 1; }
            SAMPLES[$side$path]="${SAMPLES[$side$path]:-} $rps"
            echo "run $run: $side $path $rps req/s" >&2
        done
    done
done
RSS_AFTER_LOAD=$(rss_kb "$SERVER_PID")

# --- idle keep-alive connections ---------------------------------------------------------
"$PYTHON" bench/idle_connections.py "${OURS##*:}" "$IDLE" >"$WORK/idle.out" &
IDLE_PID=$!
for _ in $(seq 1200); do
    grep -q '^ready' "$WORK/idle.out" && break
    kill -0 "$IDLE_PID" 2>/dev/null || { echo "bench: the idle connection helper failed" >&2; exit 1; }
    sleep 0.1
done
grep -q '^ready' "$WORK/idle.out" || { echo "bench: $IDLE connections not ready in time" >&2; exit 1; }
sleep 1
RSS_IDLE=$(rss_kb "$SERVER_PID")
kill -TERM "$IDLE_PID" && wait "$IDLE_PID" 2>/dev/null || true
IDLE_PID=""

# --- report ------------------------------------------------------------------------------
row() {  # path goal
    local ours nginx ratio verdict
    ours=$(median ${SAMPLES[ours$1]})
    nginx=$(median ${SAMPLES[nginx$1]})
    ratio=$(awk -v a="$ours" -v b="$nginx" 'BEGIN { printf "%.3f", a / b }')
    verdict=$(awk -v a="$ours" -v b="$nginx" -v g="$2" 'BEGIN { print (a >= g * b) ? "met" : "missed" }')
    printf '| `GET %s` | %.0f | %.0f | %s | >= %s | %s |\n' "$1" "$ours" "$nginx" "$ratio" "$2" "$verdict"
}

mkdir -p bench/results
{
    echo "## Relaydeck Server benchmark ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)"
    echo
    echo "wrk -t1 -c$CONNECTIONS -d$DURATION, keep-alive, loopback; median of $RUNS runs, alternating relaydeckd and nginx $(nginx -v 2>&1 | sed 's/.*\///') (1 worker, return 200)."
    echo
    echo "| request | relaydeckd req/s | nginx req/s | ratio | goal | |"
    echo "|---|---:|---:|---:|---:|---|"
    row /health 0.7
    row /v1/keys 0.4
    echo
    echo "| relaydeckd resident memory (VmRSS) | MB | goal |"
    echo "|---|---:|---|"
    echo "| after start | $(mb "$RSS_START") | < 12 MB: $(awk -v kb="$RSS_START" 'BEGIN { print (kb < 12 * 1024) ? "met" : "missed" }') |"
    echo "| after the wrk runs | $(mb "$RSS_AFTER_LOAD") | |"
    echo "| with $IDLE idle keep-alive connections | $(mb "$RSS_IDLE") | |"
    echo
    echo "Samples (req/s): ours /health:${SAMPLES[ours/health]}; nginx /health:${SAMPLES[nginx/health]};" \
         "ours /v1/keys:${SAMPLES[ours/v1/keys]}; nginx /v1/keys:${SAMPLES[nginx/v1/keys]}."
    echo "Idle connections: $(cat "$WORK/idle.out")."
    echo
    echo "Event stream fan-out (bench/events.py, its own server):"
    echo
    "$PYTHON" bench/events.py "$BINARY"
} | tee bench/results/latest.md
