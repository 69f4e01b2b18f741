"""`[server] pause_after_bulk_refusal` through the real binary (issue 7): a connection answered
429 for bulk over capacity is not read again for the Retry-After it was told, so its next
request (here a `GET /healthz`, answered at once by any connection that is read) stays
unanswered, while a fresh connection is served. Off, the same connection is read on.
bulk_flood.py drives the engine into refusing bulk. Nothing here measures time, except that a
paused connection must stay unanswered while it is paused (which slowness cannot fake) and be
answered after."""
import os
import select
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import bulk_flood  # noqa: E402
import verdict_process as vp  # noqa: E402

SERVER_CONFIG = """
[server]
max_read_pause_ms = 60000
pause_after_bulk_refusal = %s
"""


def config(pause):
    return SERVER_CONFIG % pause + bulk_flood.ENGINE_CONFIG


class BulkRefusalPauseTest(unittest.TestCase):
    def refused_connection(self, engine):
        """The kept-alive connection of the first bulk 429, at once (the pause runs from the
        refusal, and the batch may outlast it), and the function that waits for the batch."""
        refused, _, finish_batch = bulk_flood.flood_until_refused(engine, self,
                                                                 wait_for_batch=False)
        self.assertTrue(refused, "no bulk request found the queue full in %d rounds"
                        % bulk_flood.ROUNDS)
        return refused[0].conn, finish_batch

    def healthz_answered_on(self, conn, wait_s):
        """Sends GET /healthz on `conn`; whether an answer is readable within wait_s."""
        conn.request("GET", "/healthz")
        readable, _, _ = select.select([conn.sock], [], [], wait_s)
        return readable != []

    def test_a_refused_bulk_connection_is_paused(self):
        with vp.VerdictProcess(config=config("true")) as engine:
            conn, finish_batch = self.refused_connection(engine)
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
            finish_batch()
            self.assertTrue(engine.alive(), engine.read_log())

    def test_off_the_refused_connection_is_read_on(self):
        with vp.VerdictProcess(config=config("false")) as engine:
            conn, finish_batch = self.refused_connection(engine)
            # A bound on a hang, not a timing claim: the answer comes as soon as it is read.
            self.assertTrue(self.healthz_answered_on(conn, 30.0))
            response = conn.getresponse()
            self.assertEqual(response.status, 200)
            conn.close()
            finish_batch()


if __name__ == "__main__":
    unittest.main(verbosity=2)
