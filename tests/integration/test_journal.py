"""The journal through the real binary: idempotent retries, 409 on a changed body, the
stored-decision routes, state that survives a restart, and `verdict audit verify`, also beside
an engine that is deciding."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, VerdictProcess, transaction  # noqa: E402


class JournalTest(unittest.TestCase):
    def test_idempotency_and_stored_decisions(self):
        with VerdictProcess() as server:
            txn = transaction("idem-1", amount="20000.00")
            status, first = server.json("POST", "/v1/decisions", txn)
            self.assertEqual(status, 200, first)
            # The same transaction again (keys in another order): the stored decision.
            reordered = dict(reversed(list(txn.items())))
            status, again = server.json("POST", "/v1/decisions", reordered)
            self.assertEqual(status, 200, again)
            self.assertEqual(again["decision_id"], first["decision_id"])
            self.assertEqual(again["outcome"], first["outcome"])
            # Same id, different body: a conflict, and nothing changes.
            status, err = server.json("POST", "/v1/decisions",
                                      transaction("idem-1", amount="1.00"))
            self.assertEqual(status, 409, err)
            self.assertEqual(err["error"]["field"], "transaction_id")

            status, stored = server.json("GET", "/v1/decisions/" + first["decision_id"])
            self.assertEqual(status, 200, stored)
            self.assertEqual(stored["decision_id"], first["decision_id"])
            self.assertEqual(stored["reasons"], first["reasons"])
            status, by_txn = server.json("GET", "/v1/transactions/idem-1/decision")
            self.assertEqual(status, 200)
            self.assertEqual(by_txn["decision_id"], first["decision_id"])
            status, listing = server.json("GET", "/v1/accounts/ACC-1/decisions?limit=10")
            self.assertEqual(status, 200)
            self.assertIn(first["decision_id"], [d["decision_id"] for d in listing["decisions"]])

            status, _ = server.json("GET", "/v1/decisions/0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11")
            self.assertEqual(status, 404)
            status, err = server.json("GET", "/v1/decisions/not-a-uuid")
            self.assertEqual(status, 400)
            self.assertEqual(err["error"]["field"], "decision_id")
            status, _ = server.json("GET", "/v1/transactions/nope/decision")
            self.assertEqual(status, 404)
            status, err = server.json("GET", "/v1/accounts/ACC-1/decisions?limit=0")
            self.assertEqual(status, 400)
            self.assertEqual(err["error"]["field"], "limit")

    def test_state_and_chain_survive_a_restart(self):
        data = tempfile.mkdtemp(prefix="verdict-it-data-")
        ids = []
        with VerdictProcess(data_dir=data) as server:
            for i in range(12):
                ts = "2026-12-02T09:%02d:00Z" % (i * 4)
                status, d = server.json("POST", "/v1/decisions", transaction(
                    "r-%d" % i, timestamp=ts, amount="10.00", sender={"account": "ACC-R"}))
                self.assertEqual(status, 200)
                ids.append(d["decision_id"])
        with VerdictProcess(data_dir=data) as server:
            # The velocity window remembers the 12 transfers made before the restart: with the
            # demo threshold of 20 in an hour, the 9 more within the hour tip it over.
            outcomes = []
            for i in range(9):
                ts = "2026-12-02T09:%02d:30Z" % (45 + i)
                status, d = server.json("POST", "/v1/decisions", transaction(
                    "s-%d" % i, timestamp=ts, amount="10.00", sender={"account": "ACC-R"}))
                self.assertEqual(status, 200, d)
                outcomes.append(d["outcome"])
            status, again = server.json("POST", "/v1/decisions", transaction(
                "r-0", timestamp="2026-12-02T09:00:00Z", amount="10.00",
                sender={"account": "ACC-R"}))
            self.assertEqual(again["decision_id"], ids[0])
        self.assertIn("review", outcomes)
        # The journal folder, or the data dir that serve was given: both name the same journal.
        for data_dir in (os.path.join(data, "journal"), data):
            out = subprocess.run([BINARY, "audit", "verify", "--data-dir", data_dir, "--json"],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            report = json.loads(out.stdout)
            self.assertTrue(report["ok"], report)
            self.assertEqual(report["records"], 21)
        out = subprocess.run([BINARY, "audit", "export", "--data-dir", data, "--account", "ACC-R"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(len(out.stdout.splitlines()), 21)

    def test_verify_beside_a_deciding_engine(self):
        """A verify run while decisions are being journaled reads the store and the commit log's
        frames as they are at that moment: it must pass, with every decision acknowledged before
        it started among its records (none of them a false problem, none missing)."""
        data = tempfile.mkdtemp(prefix="verdict-it-data-")
        acknowledged = []
        stop = threading.Event()
        errors = []
        with VerdictProcess(data_dir=data) as server:
            def decide():
                conn = server.connection(timeout=10)
                try:
                    for i in range(5000):
                        if stop.is_set():
                            return
                        status, d = server.json("POST", "/v1/decisions", transaction(
                            "live-%d" % i, sender={"account": "ACC-L%d" % (i % 50)}), conn=conn)
                        if status != 200:
                            errors.append((status, d))
                            return
                        acknowledged.append(d["decision_id"])
                finally:
                    conn.close()

            writer = threading.Thread(target=decide)
            writer.start()
            try:
                for _ in range(4):
                    before = len(acknowledged)
                    out = subprocess.run([BINARY, "audit", "verify", "--data-dir",
                                          os.path.join(data, "journal"), "--json"],
                                         capture_output=True, text=True, timeout=60)
                    self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
                    report = json.loads(out.stdout)
                    self.assertTrue(report["ok"], report)
                    self.assertGreaterEqual(report["records"], before)
            finally:
                stop.set()
                writer.join(timeout=30)
            self.assertEqual(errors, [])
            self.assertGreater(len(acknowledged), 0)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
