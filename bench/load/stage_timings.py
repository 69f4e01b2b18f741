#!/usr/bin/env python3
"""Stage timings of stored decisions by priority class and path: p50, p99 and max of each
`timings_us` field, from `verdict audit export` output (JSON Lines). The stored `journal` is 0
and `total` ends when the record was made (docs/journal_format.md), so end-to-end latency minus
these is the commit and the I/O thread.

    OUT=/tmp/o KEEP_DATA=1 bench/load/one_run.sh 2000 5
    build/release/bin/verdict audit export --data-dir /tmp/o/var > /tmp/o/export.jsonl
    bench/load/stage_timings.py /tmp/o/export.jsonl"""
import collections
import json
import sys

by_group = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record.get("kind") != "decision":
        continue
    decision = record["decision"]
    priority = json.loads(record["canonical_input"]).get("priority", "standard")
    for stage, micros in decision["timings_us"].items():
        by_group[(priority, decision["path"])][stage].append(micros)

for (priority, path), stages in sorted(by_group.items()):
    print(f"{priority} / {path}: {len(stages['total'])} decisions")
    for stage, values in stages.items():
        values.sort()
        print(f"  {stage:9} p50 {values[len(values) // 2]:7} us  "
              f"p99 {values[int(len(values) * 0.99)]:7} us  max {values[-1]:7} us")
