#!/usr/bin/env bash
# One open-loop run against the shipped configuration (as bench/load/knee.sh starts it), for the
# by-hand figures in docs/PERFORMANCE.md (Scheduler and load): latency by class, and the
# engine's CPU per answered request (utime + stime of the process over the run, from
# /proc/PID/stat), and its minor page faults per second over the run (the same file).
# Usage (from the repository root): bench/load/one_run.sh RATE SECONDS [build/release/bin]
# Environment: ENGINE_CPU (default 1), LOAD_CPU (0), CONNECTIONS (64), MAX_CONNECTIONS (0:
#   verdict-load --max-connections, the pools may grow to it), MIX (standard=1),
#   DURABILITY (sync | async), GROUP_DELAY_US (1000), HEAP_PREFAULT_MB (256), BUSY_POLL_US (0),
#   LOAD_BUSY_POLL=1 (verdict-load --busy-poll), HONOR_RETRY_AFTER=1 (verdict-load
#   --honor-retry-after: a 429's request is sent again after its Retry-After), FIFO=1 (the
#   plain FIFO scheduler), EXTRA_TOML (appended to the configuration, e.g.
#   $'[tenants.bench]\nrate = 1' to have every request refused by the rate limit), and the
#   other settings bench/load/shipped_engine.sh lists (GROUP_DELAY_ABOVE, IO_THREAD_NICE, ...).
#   PERF=1 records `perf record -g` of the engine for 3 s into $OUT/perf.data (PERF_CALLGRAPH,
#   e.g. "dwarf,16384", replaces -g's frame pointers, which the release build does not keep);
#   STRACE=1 counts its system calls for 3 s into $OUT/strace.txt.
#   REALTIME_RATE=R: the engine also gets a realtime listener, and a second verdict-load sends it
#   R realtime requests/s (8 connections, growing like the main generator's with
#   MAX_CONNECTIONS) during the run.
#   METRICS=1: the engine's /metrics after the run, in $OUT/metrics.txt.
#   ENGINE_WRAP: a command the engine runs under, e.g. "strace -f --seccomp-bpf -T -tt -e
#   trace=fdatasync -o FILE" (the CPU figure is then the wrapper's).
#   TIMELINE=1: every answer's intended send time and latency in $OUT/timeline.csv (see
#   bench/load/stalls.py).
#   KEEP_DATA=1: the engine is stopped after the run and its data dir moved to $OUT/var (for
#   `verdict audit export`: each record's stage timings).
set -euo pipefail
RATE=$1
SECONDS_=$2
BIN=${3:-build/release/bin}
OUT=${OUT:-/tmp/verdict-one-run}
mkdir -p "$OUT"
work=$(mktemp -d)
trap '[ -n "${ENGINE:-}" ] && stop_engine; kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

ENGINE_CPU=${ENGINE_CPU:-1}
if [ -n "${REALTIME_RATE:-}" ]; then REALTIME_LISTENER=1; fi
# shellcheck source=bench/load/shipped_engine.sh
source "$(dirname "$0")/shipped_engine.sh"
make_sim_input
start_engine
cpu_ticks() { awk '{print $14 + $15}' "/proc/$ENGINE/stat"; }
minor_faults() { awk '{print $10}' "/proc/$ENGINE/stat"; }
before=$(cpu_ticks)
faults_before=$(minor_faults)
started=$(date +%s.%N)
probes=()
if [ -n "${PERF:-}" ]; then
  callgraph=(-g)
  if [ -n "${PERF_CALLGRAPH:-}" ]; then callgraph=(-F 1000 --call-graph "$PERF_CALLGRAPH"); fi
  (sleep 1; perf record "${callgraph[@]}" -o "$OUT/perf.data" -p "$ENGINE" -- sleep 3 > /dev/null 2>&1) &
  probes+=($!)
fi
if [ -n "${STRACE:-}" ]; then
  (sleep 1; timeout 3 strace -c -f -p "$ENGINE" -o "$OUT/strace.txt") &
  probes+=($!)
fi
rm -f "$OUT/realtime.json"
if [ -n "${REALTIME_RATE:-}" ]; then
  realtime_load "$REALTIME_RATE" "$SECONDS_" "$OUT/realtime.json"
  probes+=("$REALTIME_LOAD")
fi
taskset -c "${LOAD_CPU:-0}" "$BIN/verdict-load" --target "http://127.0.0.1:$PORT" \
  --rate "$RATE" --duration "$SECONDS_" --connections "${CONNECTIONS:-64}" \
  --max-connections "${MAX_CONNECTIONS:-0}" \
  --mix "${MIX:-standard=1}" --input "$work/sim.jsonl" \
  --header "Authorization: Bearer $KEY" ${TIMELINE:+--timeline "$OUT/timeline.csv"} \
  ${LOAD_BUSY_POLL:+--busy-poll} ${HONOR_RETRY_AFTER:+--honor-retry-after} \
  --json > "$OUT/run.json"
after=$(cpu_ticks)
faults=$(( $(minor_faults) - faults_before ))
ended=$(date +%s.%N)
for p in "${probes[@]}"; do wait "$p" || true; done
if [ -n "${METRICS:-}" ]; then
  /usr/bin/python3 -c 'import sys, urllib.request as u; sys.stdout.write(u.urlopen(u.Request(
    sys.argv[1], headers={"Authorization": "Bearer " + sys.argv[2]})).read().decode())' \
    "http://127.0.0.1:$PORT/metrics" "$ADMIN_KEY" > "$OUT/metrics.txt"
fi
if [ -n "${KEEP_DATA:-}" ]; then
  stop_engine
  rm -rf "$OUT/var"
  mv "$work/var" "$OUT/var"
fi
/usr/bin/python3 - "$OUT/run.json" "$((after - before))" "$(getconf CLK_TCK)" "$OUT/realtime.json" \
  "$faults" "$started" "$ended" <<'PY'
import json, os, sys
run, ticks, hz = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
answered = run["overall"]["answered"]
print(f"engine CPU per answered request: {ticks / hz * 1e6 / max(answered, 1):.0f} us")
print(f"engine minor page faults per second: {int(sys.argv[5]) / (float(sys.argv[7]) - float(sys.argv[6])):.0f}")
classes = list(run["by_class"].items())
if os.path.exists(sys.argv[4]):
    classes += [("realtime listener: " + k, v)
                for k, v in json.load(open(sys.argv[4]))["by_class"].items()]
for name, c in classes:
    print(name, {k: c[k] for k in ("sent", "answered", "within_deadline", "fallback", "retried",
                                   "status", "p50_us", "p99_us", "p999_us", "max_us")})
PY
