#!/usr/bin/env bash
# Load scenarios, figures in docs/PERFORMANCE.md (Scheduler and load): the engine pinned to one
# core, verdict-load to the other. The engine goes on the core that takes the disk's interrupts
# (ENGINE_CPU, default 1; see /proc/interrupts for the CPU the disk's queue, e.g. virtio1-req.0,
# is delivered to): with the load generator there instead, the engine's fsync completions wait
# behind it, and the standard class p99 at 2,000/s was about 10 ms rather than 2.1 ms
# (docs/perf-log/2026-12-03-load-full-pipeline.md).
#   1. the knee of the full pipeline (durable journal): highest rate with standard p99 <= 2 ms;
#   2. nginx (one worker, fixed 300-byte JSON reply) through the same generator, same ramp;
#   3. overload: bulk at 3x the knee plus realtime at 10% of it, priority scheduler vs FIFO, and
#      priority with realtime on the realtime listener.
# Usage (from the repository root): bench/load/knee.sh [build/release/bin]; writes JSON results
# to $OUT (default /tmp/verdict-knee) and prints them in short (bench/load/knee_summary.py).
# Needs nginx-light (scripts/setup) and taskset.
# Environment: RAMP (the rates), STEP_S (seconds per step), REPEATS (engine ramps, default 1),
# KNEE (scale the overloads from this rate instead of the ramps' median knee, e.g. to repeat an
# earlier run's overload, or when no ramp met the bar). Leave LOAD_BUSY_POLL unset for the
# durable engine: a spinning generator slows the guest's syncs every 100 ms on a quota'd VM
# (docs/perf-log/2026-12-06-load-session-19.md).
set -euo pipefail
ENGINE_CPU=${ENGINE_CPU:-1}
LOAD_CPU=${LOAD_CPU:-0}
BIN=${1:-build/release/bin}
OUT=${OUT:-/tmp/verdict-knee}
RAMP=${RAMP:-1000,2000,3000,4000,6000,8000,10000}
STEP_S=${STEP_S:-3}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# shellcheck source=bench/load/shipped_engine.sh
source "$(dirname "$0")/shipped_engine.sh"
load() {
  taskset -c "$LOAD_CPU" "$BIN/verdict-load" --target "http://127.0.0.1:$1" --connections 64 --json \
    ${LOAD_BUSY_POLL:+--busy-poll} \
    --header "Authorization: Bearer ${KEY:-none}" --input "$work/sim.jsonl" "${@:2}"
}

make_sim_input

# REPEATS ramps, each on a fresh engine (engine_ramp.json, engine_ramp_2.json, ...): on a noisy
# VM one ramp's knee can be a step off; the overload runs scale from the median (the lower of
# the middle two when REPEATS is even).
knees=()
for r in $(seq "${REPEATS:-1}"); do
  ramp_json="$OUT/engine_ramp.json"
  if [ "$r" -gt 1 ]; then ramp_json="$OUT/engine_ramp_$r.json"; fi
  start_engine
  load "$PORT" --ramp "$RAMP" --duration "$STEP_S" > "$ramp_json"
  stop_engine
  knees+=("$(/usr/bin/python3 -c "import json;print(int(json.load(open('$ramp_json'))['knee_per_s']))")")
done
MEDIAN=$(printf '%s\n' "${knees[@]}" | sort -n | awk '{k[NR] = $1} END {print k[int((NR + 1) / 2)]}')
echo "engine knee: $MEDIAN/s (ramps: ${knees[*]})" >&2
KNEE=${KNEE:-$MEDIAN}
if [ "$KNEE" != "$MEDIAN" ]; then echo "overloads scaled from KNEE=$KNEE/s" >&2; fi
if [ "$KNEE" -eq 0 ]; then
  # No step met the bar (the first step also warms a fresh engine up): no knee to scale from.
  echo "no rate kept standard p99 <= 2 ms: the overload scenarios need a knee; stopping" >&2
  /usr/bin/python3 "$(dirname "$0")/knee_summary.py" "$OUT" >&2
  exit 1
fi

mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  server {
    listen 127.0.0.1:18089;
    location / { default_type application/json; return 200 '$(printf '{"decision_id":"%s","outcome":"allow","pad":"%0240d"}' 0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11 0)'; }
  }
}
NGINX
taskset -c "$ENGINE_CPU" nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
NGINX_PID=$!
sleep 0.5
load 18089 --ramp "$RAMP,15000,20000,30000,40000,50000" --duration "$STEP_S" > "$OUT/nginx_ramp.json"
kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true
echo "nginx knee: $(/usr/bin/python3 -c "import json;print(json.load(open('$OUT/nginx_ramp.json'))['knee_per_s'])")/s" >&2

RATE=$(( KNEE * 33 / 10 ))
MIX=$(/usr/bin/python3 -c "k=$KNEE;print('realtime=%.4f,bulk=%.4f' % (0.1*k/(3.3*k), 3*k/(3.3*k)))")
for mode in priority fifo; do
  FIFO=$([ "$mode" = fifo ] && echo 1 || true) start_engine
  load "$PORT" --rate "$RATE" --duration 10 --mix "$MIX" > "$OUT/overload_$mode.json"
  stop_engine
done
# The same overload with realtime on the realtime listener (docs/architecture.md): bulk alone on
# the main port, realtime from a second generator on the realtime port, at the same rates.
REALTIME_LISTENER=1 start_engine
realtime_load $(( KNEE / 10 )) 10 "$OUT/overload_listener_realtime.json"
load "$PORT" --rate $(( KNEE * 3 )) --duration 10 --mix bulk=1 > "$OUT/overload_listener_bulk.json"
wait "$REALTIME_LOAD"
stop_engine
/usr/bin/python3 "$(dirname "$0")/knee_summary.py" "$OUT" >&2
echo "results in $OUT" >&2
