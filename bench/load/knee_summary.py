#!/usr/bin/env python3
"""Prints what bench/load/knee.sh measured, from the JSON it left in OUT: each ramp's standard
p99 by step, nginx's, and each overload's classes (sent, within deadline, p99, throughput), in
the form docs/PERFORMANCE.md records them.

    bench/load/knee_summary.py OUT"""
import glob
import json
import os
import sys


def ramp_line(path):
    with open(path) as f:
        ramp = json.load(f)
    steps = ", ".join("%d/s %.2f ms" % (s["rate_per_s"], s["overall"]["p99_us"] / 1000)
                      for s in ramp["steps"])
    return "%s: knee %d/s; p99 %s" % (os.path.basename(path), ramp["knee_per_s"], steps)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    ramps = sorted(glob.glob(os.path.join(out, "engine_ramp*.json")))
    for path in ramps + [os.path.join(out, "nginx_ramp.json")]:
        if os.path.exists(path):
            print(ramp_line(path))
    for path in sorted(glob.glob(os.path.join(out, "overload_*.json"))):
        with open(path) as f:
            run = json.load(f)
        for name, c in sorted(run["by_class"].items()):
            if c["sent"]:
                print("%s %s: sent %d, within deadline %d, p99 %.1f ms, %.0f/s" % (
                    os.path.basename(path), name, c["sent"], c["within_deadline"],
                    c["p99_us"] / 1000, c["throughput_per_s"]))


if __name__ == "__main__":
    main()
