#!/usr/bin/python3
"""How long a standby takes to start deciding once the owner is gone, with and without its warm
copy of the account states (cluster::WarmState, [cluster] warm_standby), side by side in one
run, figures in docs/PERFORMANCE.md ("Cluster node on PostgreSQL").

For each mode and repetition: scripts/cluster's etcd and PostgreSQL (primary + synchronous
standby), one node that decides a few transactions, ACCOUNTS synthetic account states added to
the journal's state table (copies of a real one under new keys, so the engine decodes each), a
second node started as the standby, then kill -9 of the owner. Reported: the standby's
verdict_cluster_takeover_seconds (from the map naming it to its engine serving: claiming the
fence, opening the journal, loading every state, models and policies) and the time from the
kill until it answered a decision. The lease is the same in both modes, and its wait is in the
second figure only.

Usage (from the repository root): bench/cluster/takeover.py [--accounts N] [--repeats R]
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "cluster"))
import cluster_harness  # noqa: E402

cluster = cluster_harness.load()


def post(url, tx_id):
    body = json.dumps({
        "transaction_id": tx_id, "timestamp": "2026-12-07T10:15:30.123Z", "amount": "120.00",
        "currency": "USD", "sender": {"account": "ACC-1", "bank": "BANKUS33", "country": "US"},
        "receiver": {"account": "ACC-2", "bank": "BANKGB22", "country": "GB"},
        "channel": "wire", "type": "transfer", "priority": "standard", "deadline_ms": 200}).encode()
    request = urllib.request.Request(url + "/v1/decisions", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status
    except (OSError, urllib.error.HTTPError):
        return None


def metric(url, name):
    with urllib.request.urlopen(url + "/metrics", timeout=5) as answer:
        text = answer.read().decode()
    found = re.search(rf"^{name} ([0-9.e+-]+)$", text, re.M)
    return float(found.group(1)) if found else None


def psql(harness, sql):
    leader = next(m for m in harness.patroni_members() if m["role"] == "leader")
    return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(leader["port"]), "-U", "postgres",
                           "-d", "verdict", "-tAc", sql], check=True, capture_output=True,
                          text=True, timeout=600,
                          env=dict(os.environ, PGPASSWORD=cluster.SUPERUSER_PASSWORD)).stdout


def one_run(warm, accounts):
    directory = tempfile.mkdtemp(prefix="verdict-takeover-")
    os.chmod(directory, 0o755)
    harness = cluster.Harness(directory)
    base_config = harness.node_config
    harness.node_config = lambda node: base_config(node) + f"warm_standby = {str(warm).lower()}\n"
    harness.state = {"partitions": 4, "secure": False, "nodes": [], "lease_seconds": 2}
    try:
        harness.start_etcd()
        harness.start_postgres(2)
        owner, standby = {"id": "node0"}, {"id": "node1"}
        harness.state["nodes"] += [owner, standby]
        harness.start_node(owner)
        cluster.wait_until("the owner deciding", lambda: post(owner["url"], "t-0") == 200, 60)
        psql(harness, "INSERT INTO verdict_journal_state (chain, key, value, seq) "
                      "SELECT 0, convert_to('dev/SYN-' || g, 'UTF8'), s.value, s.seq "
                      f"FROM generate_series(1, {accounts}) g, "
                      "(SELECT value, seq FROM verdict_journal_state LIMIT 1) s")
        harness.start_node(standby)
        # The standby's copy has caught up (or, without it, the standby is at least ready).
        cluster.wait_until(
            "the standby ready",
            lambda: (metric(standby["url"], "verdict_cluster_standby_states") or 0) >=
            (accounts if warm else 0), 300)
        killed = time.monotonic()
        os.kill(owner["pid"], signal.SIGKILL)
        cluster.wait_until("the standby deciding", lambda: post(standby["url"], "t-1") == 200, 300)
        serving_after = time.monotonic() - killed
        return metric(standby["url"], "verdict_cluster_takeover_seconds"), serving_after
    finally:
        harness.stop_all()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accounts", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    results = {"warm": [], "cold": []}
    for _ in range(args.repeats):
        for mode in ("warm", "cold"):
            results[mode].append(one_run(mode == "warm", args.accounts))
            takeover, serving = results[mode][-1]
            print(f"{mode}: takeover {takeover:.3f} s, deciding {serving:.3f} s after the kill",
                  flush=True)
    summary = {"accounts": args.accounts, "repeats": args.repeats}
    for mode, runs in results.items():
        summary[mode] = {"takeover_s_median": round(statistics.median(r[0] for r in runs), 3),
                         "takeover_s": [round(r[0], 3) for r in runs],
                         "deciding_after_kill_s_median":
                             round(statistics.median(r[1] for r in runs), 3)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
