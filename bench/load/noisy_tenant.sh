#!/usr/bin/env bash
# The noisy-tenant benchmark, figures in docs/PERFORMANCE.md (Tenant fairness): two tenants of
# equal weight, durable journal, the engine pinned to ENGINE_CPU (default 1, meant to be the
# core that takes the disk's interrupts; see /proc/interrupts and bench/load/knee.sh),
# verdict-load to LOAD_CPU (default 0).
#   1. quiet:  tenant B alone, offering its share (half of CAPACITY);
#   2. flood:  the same B, while tenant A floods at 5x its share;
#   3. limited: the flood again, each tenant rate-limited at its share ([tenants.*] rate);
#   4. fifo:   the flood again with [sched] fifo = true (no priorities, no fair sharing), to
#              show what the fair queueing buys.
# Target: B's p99 in (2) at most 1.5x its p99 in (1).
# Each tenant authenticates with its own API key (`verdict keys create`).
# Usage: CAPACITY=4000 bench/load/noisy_tenant.sh [build/release/bin]
#   CAPACITY: requests/s the engine serves at its knee on the machine at hand (bench/load/knee.sh);
#   DURATION: seconds per run (default 10). JSON results go to $OUT (default /tmp/verdict-noisy).
#   REPEAT: rounds of the four runs (default 1); more than one also prints the medians.
#   TIMELINE=1: each run's answers also in $OUT/RUN.ROUND.timeline.csv (bench/load/stalls.py --tenant).
set -euo pipefail
ENGINE_CPU=${ENGINE_CPU:-1}
LOAD_CPU=${LOAD_CPU:-0}
BIN=${1:-build/release/bin}
OUT=${OUT:-/tmp/verdict-noisy}
CAPACITY=${CAPACITY:-4000}
DURATION=${DURATION:-10}
SHARE=$((CAPACITY / 2))
FLOOD=$((5 * SHARE))
mkdir -p "$OUT"
if ! "$BIN/verdict" keys create --help > /dev/null 2>&1; then
  echo "noisy_tenant.sh: '$BIN/verdict keys create' is not there: this benchmark needs API keys" \
       "so that the engine can tell the two tenants apart" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

key_for() {  # $1 = tenant; prints a fresh scorer key for it
  "$BIN/verdict" keys create --data-dir "$work/var" --tenant "$1" --role scorer --json |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])'
}

start_engine() {  # $1 = extra TOML; $2 = each tenant's rate limit (0: none)
  printf '[engine]\nworkers = 1\nheap_prefault_mb = 256\n[tenants.a]\nweight = 1\nrate = %s\n[tenants.b]\nweight = 1\nrate = %s\n%s\n' \
    "${2:-0}" "${2:-0}" "$1" > "$work/verdict.toml"
  rm -f "$work/port"
  taskset -c "$ENGINE_CPU" "$BIN/verdict" serve --config "$work/verdict.toml" --listen 127.0.0.1:0 \
    --data-dir "$work/var" --port-file "$work/port" > "$work/engine.log" 2>&1 &
  for _ in $(seq 100); do [ -f "$work/port" ] && break; sleep 0.1; done
  PORT=$(cat "$work/port")
}
stop_engine() { kill %1 2>/dev/null || true; wait 2>/dev/null || true; }
load() {  # $1 = run name (its timeline file with TIMELINE=1); the rest: verdict-load's
  local timeline=()
  if [ -n "${TIMELINE:-}" ]; then timeline=(--timeline "$OUT/$1.timeline.csv"); fi
  shift
  taskset -c "$LOAD_CPU" "$BIN/verdict-load" --target "http://127.0.0.1:$PORT" \
    --connections "${CONNECTIONS:-256}" --duration "$DURATION" --json "${timeline[@]}" "$@"
}

mkdir -p "$work/var"
KEY_A=$(key_for a)
KEY_B=$(key_for b)

# REPEAT rounds of the four runs, in turn, so that each comparison is between neighbours in
# time (on a shared, noisy VM a single 10 s run's p99 can move 2-4x between identical runs;
# docs/perf-log/2026-12-02-to-12-04-tenants.md).
for round in $(seq "${REPEAT:-1}"); do
  start_engine ""
  load "quiet.$round" --tenant "b:$SHARE:$KEY_B" > "$OUT/quiet.$round.json"
  stop_engine
  start_engine ""
  load "flood.$round" --tenant "a:$FLOOD:$KEY_A" --tenant "b:$SHARE:$KEY_B" > "$OUT/flood.$round.json"
  stop_engine
  # The same flood with each tenant's rate limit at its share: A's excess is refused (429) at
  # admission, before it costs a decision or a journal write, and its refused connections are
  # then paused (server.max_read_pause_ms).
  start_engine "" "$SHARE"
  load "limited.$round" --tenant "a:$FLOOD:$KEY_A" --tenant "b:$SHARE:$KEY_B" \
    > "$OUT/limited.$round.json"
  stop_engine
  start_engine $'[sched]\nfifo = true'
  load "fifo.$round" --tenant "a:$FLOOD:$KEY_A" --tenant "b:$SHARE:$KEY_B" > "$OUT/fifo.$round.json"
  stop_engine
done

/usr/bin/python3 - "$OUT" "${REPEAT:-1}" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
names = ("quiet", "flood", "limited", "fifo")
print("round run     tenant offered/s  sent  answered  in-deadline  p50_us  p99_us  p999_us  status")
b_p99 = {name: [] for name in names}
for k in range(1, rounds + 1):
    for name in names:
        r = json.load(open(f"{out}/{name}.{k}.json"))
        for tenant, t in sorted(r["by_tenant"].items()):
            o = t["overall"]
            print(f"{k:5} {name:7} {tenant:6} {t['rate_per_s']:9.0f} {o['sent']:6} "
                  f"{o['answered']:8} {o['within_deadline']:11} {o['p50_us']:7} {o['p99_us']:7} "
                  f"{o['p999_us']:8}  {o['status']}")
        b_p99[name].append(r["by_tenant"]["b"]["overall"]["p99_us"])
for k in range(rounds):
    quiet = b_p99["quiet"][k]
    print(f"round {k + 1}: B p99 quiet {quiet} us; A flooding "
          + ", ".join(f"{name} {b_p99[name][k]} us ({b_p99[name][k] / quiet:.2f}x)"
                      for name in names[1:]))
if rounds > 1:
    median = {name: statistics.median(v) for name, v in b_p99.items()}
    print(f"medians over {rounds} rounds: B p99 quiet {median['quiet']:.0f} us; A flooding "
          + ", ".join(f"{name} {median[name]:.0f} us ({median[name] / median['quiet']:.2f}x)"
                      for name in names[1:]) + " (target <= 1.5x)")
PY
echo "results in $OUT" >&2
