#!/usr/bin/env bash
# What one request costs the engine, per thread (docs/perf-log/2026-12-04-load-session-11.md):
# runs bench/load/one_run.sh at RATE for 7 s and, over 4 s in its middle, reads /proc for each
# engine thread's voluntary and involuntary context switches and the process's user and system
# CPU, and prints them per request offered (the run's own summary follows).
# Usage (from the repository root): bench/load/per_request.sh RATE [build/release/bin]
# Environment: as one_run.sh (DURABILITY, ENGINE_WRAP, ...).
set -euo pipefail
RATE=$1
BIN=${2:-build/release/bin}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bench/load/one_run.sh "$RATE" 7 "$BIN" > "$log" 2>&1 &
RUN=$!
ENGINE=""
for _ in $(seq 200); do
  ENGINE=$(pgrep -f "$BIN/verdict serve" | head -1 || true)
  [ -n "$ENGINE" ] && break
  sleep 0.05
done
[ -n "$ENGINE" ] || { echo "the engine did not start" >&2; exit 1; }
sleep 1.5  # past the warm-up
snapshot() {
  for task in /proc/"$ENGINE"/task/*; do
    awk -v comm="$(cat "$task/comm")" '/^voluntary_ctxt/ {v = $2} /^nonvoluntary_ctxt/ {n = $2}
      END {print comm, v, n}' "$task/status"
  done
  awk '{print "cpu_ticks", $14, $15}' /proc/"$ENGINE"/stat
}
before=$(snapshot)
sleep 4
after=$(snapshot)
wait "$RUN"
# Threads of one name are summed; ticks are 1/100 s (USER_HZ).
/usr/bin/python3 - "$RATE" "$before" "$after" <<'PY'
import collections, sys
rate, before, after = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def parse(text):
    sums = collections.defaultdict(lambda: [0, 0])
    for line in text.splitlines():
        name, a, b = line.rsplit(" ", 2)
        sums[name][0] += int(a)
        sums[name][1] += int(b)
    return sums
b, a = parse(before), parse(after)
requests = rate * 4
total = [0, 0]
for name in sorted(a):
    if name == "cpu_ticks":
        continue
    vol = a[name][0] - b[name][0]
    invol = a[name][1] - b[name][1]
    total[0] += vol
    total[1] += invol
    if vol + invol:
        print("%-16s switches per request: voluntary %.2f, involuntary %.2f" %
              (name, vol / requests, invol / requests))
print("%-16s switches per request: voluntary %.2f, involuntary %.2f" %
      ("all threads", total[0] / requests, total[1] / requests))
user = (a["cpu_ticks"][0] - b["cpu_ticks"][0]) * 1e4 / requests
system = (a["cpu_ticks"][1] - b["cpu_ticks"][1]) * 1e4 / requests
print("CPU per request: user %.0f us, system %.0f us" % (user, system))
PY
tail -1 "$log"
