"""`[server] pause_after_bulk_refusal` through the real binary (issue 7): a connection answered
429 for bulk over capacity is not read again for the Retry-After it was told, so its next
request (here a `GET /healthz`, answered at once by any connection that is read) stays
unanswered, while a fresh connection is served. Off, the same connection is read on. The worker
is kept busy by a batch request while bulk requests arrive, each sender on its own kept-alive
connection, and the round is repeated (a bounded number of times) if the batch ended before any
bulk request found the queue full. Nothing here measures time, except that a paused connection
must stay unanswered while it is paused (which slowness cannot fake) and be answered after."""
import os
import select
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import verdict_process as vp  # noqa: E402

CONFIG = """
[server]
max_read_pause_ms = 60000
pause_after_bulk_refusal = %s
[engine]
workers = 1
[sched]
bulk_queue_capacity = 1
inline_when_idle = false
[journal]
durability = "async"
"""

BATCH = 1000
ROUNDS = 20
SENDERS = 4


def refused_connection(engine):
    """A kept-alive connection whose last answer was a bulk 429, or None after ROUNDS."""
    for round_ in range(ROUNDS):
        batch = {"transactions": [vp.transaction("batch-%d-%d" % (round_, i))
                                  for i in range(BATCH)]}
        batch_done = threading.Event()

        def run_batch():
            try:
                engine.request("POST", "/v1/decisions:batch", batch)
            finally:
                batch_done.set()

        batch_thread = threading.Thread(target=run_batch)
        batch_thread.start()
        connections = [engine.connection() for _ in range(SENDERS)]
        refused = []
        wave = 0
        while not batch_done.is_set() and not refused:
            results = [None] * SENDERS

            def send(i):
                txn = vp.transaction("bulk-%d-%d-%d" % (round_, wave, i), priority="bulk",
                                     deadline_ms=2000)
                results[i] = engine.request("POST", "/v1/decisions", txn, None, connections[i])

            senders = [threading.Thread(target=send, args=(i,)) for i in range(SENDERS)]
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            refused = [connections[i] for i, r in enumerate(results) if r[0] == 429]
            wave += 1
        batch_thread.join()
        for conn in connections:
            if not refused or conn is not refused[0]:
                conn.close()
        if refused:
            return refused[0]
    return None


class BulkRefusalPauseTest(unittest.TestCase):
    def healthz_answered_on(self, conn, wait_s):
        """Sends GET /healthz on `conn`; whether an answer is readable within wait_s."""
        conn.request("GET", "/healthz")
        readable, _, _ = select.select([conn.sock], [], [], wait_s)
        return readable != []

    def test_a_refused_bulk_connection_is_paused(self):
        with vp.VerdictProcess(config=CONFIG % "true") as engine:
            conn = refused_connection(engine)
            self.assertIsNotNone(conn, "no bulk request found the queue full in %d rounds" % ROUNDS)
            # Retry-After is 1 s here, so the pause is drawn from 0.5 to 1 s (SpreadPause):
            # nothing may come in the first 0.3 s.
            self.assertFalse(self.healthz_answered_on(conn, 0.3),
                             "a paused connection was answered")
            status, _, _ = engine.request("GET", "/healthz")
            self.assertEqual(status, 200)
            # Once the pause is over the connection is read again and answered.
            readable, _, _ = select.select([conn.sock], [], [], 30.0)
            self.assertNotEqual(readable, [])
            self.assertEqual(conn.getresponse().status, 200)
            conn.close()
            self.assertTrue(engine.alive(), engine.read_log())

    def test_off_the_refused_connection_is_read_on(self):
        with vp.VerdictProcess(config=CONFIG % "false") as engine:
            conn = refused_connection(engine)
            self.assertIsNotNone(conn, "no bulk request found the queue full in %d rounds" % ROUNDS)
            # A bound on a hang, not a timing claim: the answer comes as soon as it is read.
            self.assertTrue(self.healthz_answered_on(conn, 30.0))
            response = conn.getresponse()
            self.assertEqual(response.status, 200)
            conn.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
