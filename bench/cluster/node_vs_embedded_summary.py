#!/usr/bin/python3
"""Summary of bench/cluster/node_vs_embedded.sh's runs: decisions/s of each mode, the ratio
cluster / embedded of each repetition (the two runs of one repetition are side by side) with its
mean, sd and range, and CPU µs per decision. Usage: node_vs_embedded_summary.py OUT_DIR; prints a
table and writes OUT_DIR/summary.json."""
import glob
import json
import os
import statistics
import sys


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return {"n": 0}
    return {"n": len(values), "mean": statistics.mean(values),
            "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values), "max": max(values), "each": values}


def fmt(s, digits=0):
    if not s.get("n"):
        return "-"
    f = f"{{:.{digits}f}}"
    return (f"{f.format(s['mean'])} ± {f.format(s['sd'])} "
            f"({', '.join(f.format(v) for v in s['each'])})")


def main():
    out = sys.argv[1]
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, "run_*_*.json")))
            if p.count(".") == 1]
    by = {}
    for r in runs:
        by.setdefault(r["rep"], {})[r["mode"]] = r
    reps = sorted(k for k, v in by.items() if {"embedded", "cluster"} <= set(v))
    modes = {m: [by[k][m] for k in reps] for m in ("embedded", "cluster")}
    summary = {
        "repetitions": len(reps),
        "decisions_per_s": {m: spread([r["decisions_per_s"] for r in rs]) for m, rs in modes.items()},
        "ratio_cluster_over_embedded": spread(
            [by[k]["cluster"]["decisions_per_s"] / by[k]["embedded"]["decisions_per_s"]
             for k in reps]),
        "cpu_us_per_decision": {
            m: {part: spread([r["cpu_us_per_decision"][part] for r in rs])
                for part in ("node", "postgres", "patroni", "etcd")} for m, rs in modes.items()},
        "journal": {m: {"mean_group": spread([r["journal"]["mean_group"] for r in rs]),
                        "mean_commit_ms": spread([r["journal"]["mean_commit_ms"] for r in rs])}
                    for m, rs in modes.items()},
        "all_saturated": all(r["saturated"] for r in runs),
        "non_200": {f"{r['rep']}_{r['mode']}": {k: v for k, v in r["status"].items() if k != "200"}
                    for r in runs if set(r["status"]) - {"200"}},
        "fallback": sum(r["fallback"] for r in runs),
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"repetitions: {len(reps)} (mean ± sd (each))")
    for m in ("embedded", "cluster"):
        print(f"{m:9s} decisions/s: {fmt(summary['decisions_per_s'][m])}")
    print(f"ratio cluster/embedded: {fmt(summary['ratio_cluster_over_embedded'], 3)}")
    for m in ("embedded", "cluster"):
        c = summary["cpu_us_per_decision"][m]
        print(f"{m:9s} CPU µs/decision: node {fmt(c['node'])}; postgres {fmt(c['postgres'])}; "
              f"patroni {fmt(c['patroni'])}; etcd {fmt(c['etcd'], 1)}")
        j = summary["journal"][m]
        print(f"{m:9s} journal: mean group {fmt(j['mean_group'], 1)}; "
              f"mean commit {fmt(j['mean_commit_ms'], 2)} ms")
    print(f"every run saturated: {summary['all_saturated']}; answers other than 200: "
          f"{summary['non_200'] or 'none'}; fallback answers: {summary['fallback']}")


if __name__ == "__main__":
    main()
