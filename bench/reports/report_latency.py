#!/usr/bin/env python3
"""Side by side: the cost of a case's report (GET /v1/cases/{id}/report, goAML and HTML, each
with its Merkle inclusion proof and its journaled export) against the case view alone and the
case view with ?proof=inclusion, on one engine whose journal holds RECORDS decision records.

Usage: bench/reports/report_latency.py RECORDS [ROUNDS]   (from the source tree, after a build)

Starts build/release/bin/verdict --insecure-dev on a fresh data directory, fills the journal
through POST /v1/decisions:batch (every transaction above the review threshold, so each opens
a case), escalates the newest case, waits until a signed checkpoint covers it, then times the four requests interleaved, ROUNDS times each,
and prints each one's median and its ratio to the plain case view. Ratios only: absolute times
on a shared VM mean little.
"""
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "integration"))
import verdict_process as vp  # noqa: E402

CONFIG = """
[reports]
rentity_id = 1
currency_code_local = "USD"
funds_code = "K"
default_transmode_code = "E"
default_indicator = "OTHER"
[reports.reporting_person]
first_name = "Bench"
last_name = "Mark"
"""


def fill(engine, records):
    sent = 0
    while sent < records:
        n = min(1000, records - sent)
        batch = [vp.transaction("bench-%d" % (sent + i), amount="25000.00",
                                sender={"account": "ACC-%d" % ((sent + i) % 500),
                                        "bank": "BANKUS33", "country": "US", "name": "A B"})
                 for i in range(n)]
        status, body = engine.json("POST", "/v1/decisions:batch", {"transactions": batch})
        assert status == 200, (status, body)
        sent += n


def main():
    records = int(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    with vp.VerdictProcess(config=CONFIG) as engine:
        fill(engine, records)
        deadline = time.monotonic() + 120
        while True:
            _, page = engine.json("GET", "/v1/cases?status=&sort=newest&limit=1")
            if page["total"] >= records:
                break
            assert time.monotonic() < deadline, page["total"]
            time.sleep(0.2)
        case_id = page["cases"][0]["case_id"]
        for action, body in (("assign", {}), ("dispose", {"disposition": "escalated"})):
            status, _ = engine.json("POST", "/v1/cases/%s:%s" % (case_id, action), body)
            assert status == 200
        # Timed once a signed checkpoint covers the case's record (every 10 s by default), so
        # that the case view's ?proof=inclusion reads the records too.
        while True:
            _, view = engine.json("GET", "/v1/cases/%s" % case_id)
            if view["proof"]["covered"]:
                break
            assert time.monotonic() < deadline + 60, view["proof"]
            time.sleep(0.5)
        paths = {
            "case view": "/v1/cases/%s" % case_id,
            "case view ?proof=inclusion": "/v1/cases/%s?proof=inclusion" % case_id,
            "report goaml": "/v1/cases/%s/report?format=goaml" % case_id,
            "report html": "/v1/cases/%s/report?format=html" % case_id,
        }
        times = {name: [] for name in paths}
        conn = engine.connection()
        for _ in range(rounds):
            for name, path in paths.items():
                start = time.perf_counter()
                status, _, _ = engine.request("GET", path, conn=conn)
                times[name].append(time.perf_counter() - start)
                assert status == 200, (name, status)
        base = statistics.median(times["case view"])
        print(json.dumps({"records": records, "rounds": rounds}))
        for name, samples in times.items():
            median = statistics.median(samples)
            print("%-28s median %8.2f ms  x%.1f of the case view" % (name, median * 1e3,
                                                                     median / base))
        # Decisions while another client asks for proofs without pause: the case view's proof
        # is computed on an I/O thread, the report's on the ReportWorker's.
        for n, load in enumerate((None, "case view ?proof=inclusion", "report html")):
            latencies = decisions_under(engine, paths.get(load), rounds * 5, "probe-%d" % n)
            print("decisions while %-28s p50 %8.2f ms  max %8.2f ms" % (
                load or "idle", statistics.median(latencies) * 1e3, max(latencies) * 1e3))


def decisions_under(engine, path, count, prefix):
    """Latencies of `count` decisions sent one after another while `path` (if any) is asked
    for again and again on a connection of its own."""
    stop = threading.Event()

    def hammer():
        conn = engine.connection()
        while not stop.is_set():
            engine.request("GET", path, conn=conn)

    thread = threading.Thread(target=hammer) if path else None
    if thread:
        thread.start()
        time.sleep(0.5)
    conn = engine.connection()
    latencies = []
    for i in range(count):
        txn = vp.transaction("%s-%d" % (prefix, i), amount="12.00")
        start = time.perf_counter()
        status, _, _ = engine.request("POST", "/v1/decisions", txn, conn=conn)
        latencies.append(time.perf_counter() - start)
        assert status == 200, status
    stop.set()
    if thread:
        thread.join()
    return latencies


if __name__ == "__main__":
    main()
