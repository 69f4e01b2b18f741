#!/usr/bin/env bash
# Pauses of the whole VM (docs/perf-log/2026-12-04-load-session-09.md): samples every vCPU
# with `perf record -a` for SECONDS and reports, per CPU, the gaps between consecutive samples
# longer than 2.5 ms. A busy vCPU is sampled every 0.5 ms (1,999 Hz); an idle one is not
# sampled at all (its tick stops), so read the figure only while every vCPU is busy: there, a
# gap on every CPU at once means the VM itself was not running. Run it beside that load.
# Usage: bench/vcpu_gaps.sh [SECONDS=2]   (needs perf and root)
set -euo pipefail
seconds=${1:-2}
data=$(mktemp)
trap 'rm -f "$data"' EXIT
perf record -F 1999 -a -o "$data" -- sleep "$seconds" > /dev/null 2>&1
for cpu in $(seq 0 $(( $(nproc) - 1 ))); do
  perf script -i "$data" -C "$cpu" -F time 2>/dev/null | awk -v cpu="$cpu" '
    { t = ($1 + 0) * 1000; if (NR > 1 && t - prev > 2.5) { n++; total += t - prev - 0.5 } prev = t }
    END { printf "cpu%d gaps > 2.5 ms: %d, %.0f ms in all\n", cpu, n, total }'
done
