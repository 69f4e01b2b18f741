#!/usr/bin/env python3
"""When the slow answers of a run happened: reads verdict-load's --timeline CSV
(bench/load/one_run.sh with TIMELINE=1) and groups answers slower than a threshold into
episodes, slow answers whose intended send times lie within 2 ms of each other.

    bench/load/stalls.py /tmp/verdict-one-run/timeline.csv [THRESHOLD_US=5000] [--class C]

A few long episodes at a fixed period are stalls of the whole machine (a VM whose host
enforces a CPU quota per 100 ms period is paused once it runs over it, at the same phase of
each period; docs/perf-log/2026-12-04-load-session-09.md); many short ones spread out are
queueing."""
import argparse
import csv

parser = argparse.ArgumentParser()
parser.add_argument("timeline")
parser.add_argument("threshold_us", type=int, nargs="?", default=5000)
parser.add_argument("--class", dest="klass", help="only this priority class")
parser.add_argument("--tenant", help="only this tenant (verdict-load --tenant runs)")
parser.add_argument("--show", type=int, default=30, help="episodes to list")
args = parser.parse_args()

rows = sorted(
    (int(r["intended_us"]), int(r["latency_us"]))
    for r in csv.DictReader(open(args.timeline))
    if (args.klass is None or r["class"] == args.klass) and
    (args.tenant is None or r["tenant"] == args.tenant))
episodes = []  # [first_us, last_us, count, max_latency_us]
for sent, latency in rows:
    if latency < args.threshold_us:
        continue
    if episodes and sent - episodes[-1][1] < 2000:
        episodes[-1][1] = sent
        episodes[-1][2] += 1
        episodes[-1][3] = max(episodes[-1][3], latency)
    else:
        episodes.append([sent, sent, 1, latency])
slow = sum(e[2] for e in episodes)
print(f"{len(rows)} answers, {slow} at or over {args.threshold_us} us "
      f"({100 * slow / max(len(rows), 1):.2f} %), in {len(episodes)} episodes")
for first, last, count, worst in episodes[:args.show]:
    print(f"  sent at {first / 1e3:9.1f} ms (mod 100: {first / 1e3 % 100:5.1f})  "
          f"span {(last - first) / 1e3:5.1f} ms  {count:4d} answers  max {worst / 1e3:5.1f} ms")
