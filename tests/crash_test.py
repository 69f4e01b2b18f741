#!/usr/bin/env python3
"""Crash test for the journal (issue 5): drive load, kill -9 the engine at a random moment,
restart it on the same data directory, and check after every cycle that

  * every decision the client saw acknowledged is stored, with the same content;
  * a retry of an acknowledged transaction returns the same decision (idempotency survived);
  * `verdict audit verify` passes on the journal;
  * `verdict audit replay` recomputes every journaled feature vector bit for bit and the stored
    account states equal those recomputed from the journal (the store holds its prefix).

Usage: crash_test.py --binary build/release/bin/verdict --cycles 200 [--seed 1]
  [--commit-log-mb N]   (a small commit log changes halves every few hundred decisions, so the
                        kills also land around a change and its background WAL sync)
Talks only to 127.0.0.1; every step is bounded in time."""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "integration"))
import verdict_process  # noqa: E402
from verdict_process import VerdictProcess, transaction  # noqa: E402

# Every acknowledged decision is checked after the kill that follows it, and a sample of
# older ones again after each later kill.
COMPARED = ("decision_id", "transaction_id", "outcome", "score", "path", "reasons",
            "contributions", "model", "policy")


def drive(server, acknowledged, bodies, stop, worker, seed):
    rng = random.Random(seed)
    conn = server.connection(timeout=5)
    n = 0
    while not stop.is_set():
        tx_id = "c%d-w%d-%d" % (seed, worker, n)
        n += 1
        txn = transaction(tx_id, amount="%d.%02d" % (rng.randint(1, 30000), rng.randint(0, 99)),
                          sender={"account": "ACC-%d" % rng.randint(0, 50)},
                          receiver={"account": "ACC-%d" % rng.randint(0, 50)})
        try:
            status, d = server.json("POST", "/v1/decisions", txn, conn=conn)
        except Exception:  # the engine was killed mid-request: not acknowledged
            return
        if status == 200:
            acknowledged[tx_id] = d
            bodies[tx_id] = txn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=verdict_process.BINARY)
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commit-log-mb", type=int, default=None)
    args = parser.parse_args()
    verdict_process.BINARY = args.binary
    rng = random.Random(args.seed)
    data = tempfile.mkdtemp(prefix="verdict-crash-")
    acknowledged, bodies = {}, {}
    recent = set()
    failures = 0
    checked = 0
    try:
        for cycle in range(args.cycles):
            server = VerdictProcess(
                data_dir=data,
                config=None if args.commit_log_mb is None
                else "[journal]\ncommit_log_mb = %d\n" % args.commit_log_mb)
            try:
                # Everything acknowledged before the last kill must have survived it; older
                # decisions, checked after their own crash already, are sampled again.
                older = [t for t in acknowledged if t not in recent]
                check = sorted(recent) + rng.sample(older, min(200, len(older)))
                for tx_id in check:
                    d = acknowledged[tx_id]
                    status, stored = server.json("GET", "/v1/decisions/" + d["decision_id"])
                    same = status == 200 and all(stored.get(k) == d.get(k) for k in COMPARED)
                    checked += 1
                    if not same:
                        print("cycle %d: acknowledged %s lost or changed: %s %s" %
                              (cycle, tx_id, status, stored), file=sys.stderr)
                        failures += 1
                for tx_id in rng.sample(sorted(acknowledged), min(5, len(acknowledged))):
                    status, again = server.json("POST", "/v1/decisions", bodies[tx_id])
                    if status != 200 or again["decision_id"] != acknowledged[tx_id]["decision_id"]:
                        print("cycle %d: retry of %s gave %s" % (cycle, tx_id, status),
                              file=sys.stderr)
                        failures += 1
                before = set(acknowledged)
                stop = threading.Event()
                threads = [threading.Thread(target=drive, args=(
                    server, acknowledged, bodies, stop, w, args.seed * 1000 + cycle))
                    for w in range(4)]
                for t in threads:
                    t.start()
                time.sleep(rng.uniform(0.1, 0.8))
                server.proc.send_signal(signal.SIGKILL)
                server.proc.wait(timeout=10)
                stop.set()
                for t in threads:
                    t.join(timeout=10)
                recent = set(acknowledged) - before
            finally:
                server.stop()
                shutil.rmtree(server.tmp, ignore_errors=True)
            verify = subprocess.run([args.binary, "audit", "verify", "--data-dir",
                                     os.path.join(data, "journal"), "--json"],
                                    capture_output=True, text=True, timeout=120)
            if verify.returncode != 0:
                print("cycle %d: audit verify failed: %s %s" % (cycle, verify.stdout,
                                                               verify.stderr), file=sys.stderr)
                failures += 1
            else:
                report = json.loads(verify.stdout)
                records = report["records"]
                in_log = report["records_only_in_commit_log"]
                print("cycle %d: %d acknowledged so far, journal verifies (%d records, %d of "
                      "them in the commit log only)" % (cycle, len(acknowledged), records, in_log),
                      file=sys.stderr)
                # Every acknowledged decision is a verified record, in the store or in the log's
                # frames (before the next start restores them): fewer means one was acknowledged
                # early.
                if records < len(acknowledged):
                    print("cycle %d: %d acknowledged but only %d records durable" %
                          (cycle, len(acknowledged), records), file=sys.stderr)
                    failures += 1
            replay = subprocess.run([args.binary, "audit", "replay", "--data-dir",
                                     os.path.join(data, "journal"), "--json"],
                                    capture_output=True, text=True, timeout=300)
            if replay.returncode != 0:
                print("cycle %d: journal replay does not reproduce the state: %s %s" %
                      (cycle, replay.stdout, replay.stderr), file=sys.stderr)
                failures += 1
    finally:
        shutil.rmtree(data, ignore_errors=True)
    print("crash test: %d cycles, %d decisions acknowledged, %d stored-decision checks, "
          "%d failures" % (args.cycles, len(acknowledged), checked, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
