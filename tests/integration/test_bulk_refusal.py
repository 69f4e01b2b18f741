"""A bulk request beyond the bulk queue's capacity through the real binary (issue 7): 429 with a
Retry-After of at least a second and an error that says why, nothing journaled for it, and the
same request decided once retried. The scheduler's tests cover how Retry-After is computed;
this checks that it reaches the client. Counts only: the one worker is kept busy by a batch
request while bulk requests arrive, and the round is repeated (a bounded number of times) if
the batch ended before any bulk request found the queue full."""
import json
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import verdict_process as vp  # noqa: E402

# One worker and room for one waiting bulk request; no inline decisions, so every request waits
# for the worker. Asynchronous journal: this is about admission, not durability.
CONFIG = """
[engine]
workers = 1
[sched]
bulk_queue_capacity = 1
inline_when_idle = false
[journal]
durability = "async"
"""

BATCH = 1000  # the most a batch request may hold: it keeps the worker busy the longest
ROUNDS = 20


class BulkRefusalTest(unittest.TestCase):
    def test_bulk_over_capacity_gets_429_with_retry_after_and_nothing_is_stored(self):
        with vp.VerdictProcess(config=CONFIG) as engine:
            refused, answered = [], []
            for round_ in range(ROUNDS):
                batch = {"transactions": [vp.transaction("batch-%d-%d" % (round_, i))
                                          for i in range(BATCH)]}
                batch_done = threading.Event()
                batch_result = []

                def run_batch():
                    try:
                        status, _, body = engine.request("POST", "/v1/decisions:batch", batch)
                        batch_result.append((status, body[:300]))
                    finally:
                        batch_done.set()  # also when the request failed: the waves stop

                batch_thread = threading.Thread(target=run_batch)
                batch_thread.start()
                wave = 0
                while not batch_done.is_set() and not refused:
                    results = [None] * 4
                    ids = ["bulk-%d-%d-%d" % (round_, wave, i) for i in range(len(results))]

                    def send(i):
                        txn = vp.transaction(ids[i], priority="bulk", deadline_ms=2000)
                        results[i] = (ids[i], txn) + engine.request("POST", "/v1/decisions", txn)

                    senders = [threading.Thread(target=send, args=(i,))
                               for i in range(len(results))]
                    for t in senders:
                        t.start()
                    for t in senders:
                        t.join()
                    for tx_id, txn, status, headers, body in results:
                        self.assertIn(status, (200, 429), body)
                        (refused if status == 429 else answered).append(
                            (tx_id, txn, headers, body))
                    wave += 1
                batch_thread.join()
                self.assertEqual(len(batch_result), 1, "the batch request raised")
                self.assertEqual(batch_result[0][0], 200, batch_result[0][1])
                if refused:
                    break
            self.assertTrue(refused, "no bulk request found the queue full in %d rounds" % ROUNDS)
            self.assertTrue(answered)  # the one that found room waited and was decided

            for tx_id, txn, headers, body in refused:
                self.assertGreaterEqual(int(headers["retry-after"]), 1, headers)
                error = json.loads(body)["error"]
                self.assertIn("bulk", error["message"])
                # Refused before any decision: nothing journaled under its id.
                status, _, _ = engine.request(
                    "GET", "/v1/transactions/%s/decision" % tx_id)
                self.assertEqual(status, 404, tx_id)

            # Retried once the worker is free, the same request is decided.
            tx_id, txn, _, _ = refused[0]
            status, _, body = engine.request("POST", "/v1/decisions", txn)
            self.assertEqual(status, 200, body)
            self.assertEqual(json.loads(body)["transaction_id"], tx_id)


if __name__ == "__main__":
    unittest.main()
