"""Issue 7 under load, counts only: a bulk flood far beyond capacity next to a trickle of
realtime traffic. Every realtime request must be answered within its deadline; every bulk
request must be answered (200) or refused (429): none dropped, none failed otherwise."""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, VerdictProcess  # noqa: E402

LOAD = os.path.join(os.path.dirname(BINARY), "verdict-load")

# The journal is asynchronous here so that this checks scheduling alone: on a shared CI
# machine an fsync can take longer than a realtime deadline whatever the scheduler does (the
# journal's own tests cover durability). The flood is 600 requests/s: at 1,000/s the ASan
# build's one I/O thread was saturated, and on a slow day 1 run in 5 or 6 had a realtime answer
# or two just past 50 ms (session 16, with and without journal.commit_on_io_thread); bulk is
# still far beyond the queue's capacity of 2.
CONFIG = """
[engine]
workers = 1
[sched]
bulk_queue_capacity = 2
[journal]
durability = "async"
"""


class OverloadTest(unittest.TestCase):
    def run_load(self, port, mix, rate, seconds, extra=()):
        out = subprocess.run(
            [LOAD, "--target", "http://127.0.0.1:%d" % port, "--rate", str(rate),
             "--duration", str(seconds), "--connections", "64", "--mix", mix, "--json",
             *extra],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def test_realtime_keeps_its_deadline_while_bulk_floods(self):
        timeline = tempfile.NamedTemporaryFile(suffix=".csv", delete=False).name
        self.addCleanup(os.unlink, timeline)
        with VerdictProcess(config=CONFIG) as server:
            result = self.run_load(server.port, "realtime=0.05,bulk=0.95", 600, 4,
                                   ("--timeline", timeline))
            self.assertTrue(server.alive(), server.read_log())
        rt = result["by_class"]["realtime"]
        bulk = result["by_class"]["bulk"]
        self.assertGreater(rt["sent"], 0)
        self.assertEqual(rt["answered"], rt["sent"], rt)
        self.assertEqual(rt["within_deadline"], rt["sent"], rt)
        self.assertEqual(set(rt["status"]), {"200"}, rt)
        # Bulk: answered or refused with 429, never lost.
        self.assertEqual(bulk["answered"], bulk["sent"], bulk)
        self.assertTrue(set(bulk["status"]) <= {"200", "429"}, bulk)
        self.assertGreater(bulk["status"].get("200", 0), 0, bulk)
        # The timeline has one row per answer, with the class and status the report counted.
        with open(timeline) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), result["overall"]["answered"])
        for klass, stats in (("realtime", rt), ("bulk", bulk)):
            statuses = {}
            for row in rows:
                if row["class"] == klass:
                    statuses[row["status"]] = statuses.get(row["status"], 0) + 1
            self.assertEqual(statuses, stats["status"], klass)
        self.assertTrue(all(int(r["latency_us"]) >= 0 and int(r["intended_us"]) >= 0
                            for r in rows))


if __name__ == "__main__":
    unittest.main(verbosity=2)
