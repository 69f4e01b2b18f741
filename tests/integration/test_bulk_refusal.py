"""A bulk request beyond the bulk queue's capacity through the real binary (issue 7): 429 with a
Retry-After of at least a second and an error that says why, nothing journaled for it, and the
same request decided once retried. The scheduler's tests cover how Retry-After is computed;
this checks that it reaches the client. Counts only (bulk_flood.py drives the engine into
refusing)."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import bulk_flood  # noqa: E402
import verdict_process as vp  # noqa: E402


class BulkRefusalTest(unittest.TestCase):
    def test_bulk_over_capacity_gets_429_with_retry_after_and_nothing_is_stored(self):
        with vp.VerdictProcess(config=bulk_flood.ENGINE_CONFIG) as engine:
            refused, answered, _ = bulk_flood.flood_until_refused(engine, self)
            self.assertTrue(refused, "no bulk request found the queue full in %d rounds"
                            % bulk_flood.ROUNDS)
            refused[0].conn.close()
            self.assertTrue(answered)  # the one that found room waited and was decided

            for answer in refused:
                self.assertGreaterEqual(int(answer.headers["retry-after"]), 1, answer.headers)
                error = json.loads(answer.body)["error"]
                self.assertIn("bulk", error["message"])
                # Refused before any decision: nothing journaled under its id.
                status, _, _ = engine.request(
                    "GET", "/v1/transactions/%s/decision" % answer.tx_id)
                self.assertEqual(status, 404, answer.tx_id)

            # Retried once the worker is free, the same request is decided.
            status, _, body = engine.request("POST", "/v1/decisions", refused[0].txn)
            self.assertEqual(status, 200, body)
            self.assertEqual(json.loads(body)["transaction_id"], refused[0].tx_id)


if __name__ == "__main__":
    unittest.main()
