"""Policy bundles through the real binary: a bad bundle is refused with positions and the
active policy keeps serving; a good one is validated, then ingested while decisions flow, and
every decision carries exactly one of the two policy versions, none failing."""
import json
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import VerdictProcess, transaction  # noqa: E402

GOOD = """policy "it" version "%s"
const big = 5000 USD
rule big_amount {
  description "large transfer"
  when txn.amount >= big
  then review
  reason "BIG_AMOUNT"
}
"""

BAD = """policy "it" version "9"
rule broken {
  description "refers to a feature that does not exist"
  when no_such_feature > 3
  then review
  reason "X"
}
"""


class PolicyTest(unittest.TestCase):
    def test_validate_ingest_under_load(self):
        with VerdictProcess() as server:
            status, active = server.json("GET", "/v1/policy")
            self.assertEqual(status, 200)
            old_version = active["version"]

            status, body = server.json("POST", "/v1/policy:validate",
                                       {"version": "9", "policy": BAD, "files": {}})
            self.assertEqual(status, 400, body)
            errors = body["error"]["errors"]
            self.assertTrue(errors)
            self.assertEqual(errors[0]["line"], 4, errors)
            self.assertIn("no_such_feature", errors[0]["message"])
            status, body = server.json("POST", "/v1/policy/ingest",
                                       {"version": "9", "policy": BAD, "files": {}})
            self.assertEqual(status, 400)
            self.assertEqual(server.json("GET", "/v1/policy")[1]["version"], old_version)

            status, body = server.json("POST", "/v1/policy:validate",
                                       {"version": "2", "policy": GOOD % "2", "files": {}})
            self.assertEqual(status, 200, body)
            self.assertTrue(body["valid"])

            results, failures = [], []
            stop = threading.Event()

            def drive(worker):
                conn = server.connection()
                n = 0
                while not stop.is_set() or n < 20:
                    status, d = server.json("POST", "/v1/decisions", transaction(
                        "p-%d-%d" % (worker, n), amount="6000.00"), conn=conn)
                    n += 1
                    if status != 200:
                        failures.append((status, d))
                    else:
                        results.append(d)
                    if n >= 400:
                        break

            threads = [threading.Thread(target=drive, args=(w,)) for w in range(4)]
            for t in threads:
                t.start()
            status, body = server.json("POST", "/v1/policy/ingest",
                                       {"version": "2", "policy": GOOD % "2", "files": {}})
            self.assertEqual(status, 200, body)
            stop.set()
            for t in threads:
                t.join(timeout=120)
            self.assertEqual(failures, [])
            versions = {d["policy"]["version"] for d in results}
            self.assertTrue(versions <= {old_version, "2"}, versions)
            self.assertEqual(server.json("GET", "/v1/policy")[1]["version"], "2")
            # After activation the new rule decides.
            status, d = server.json("POST", "/v1/decisions",
                                    transaction("p-after", amount="6000.00"))
            self.assertEqual(d["policy"]["version"], "2")
            self.assertIn("BIG_AMOUNT", [r["code"] for r in d["reasons"]])


if __name__ == "__main__":
    unittest.main(verbosity=2)
