"""A tenant over its rate limit through the real binary (issue 9): 429 with Retry-After, and
its connection is not read again until the wait it was told has passed (server.
max_read_pause_ms), so a flood costs the engine one refusal per connection per pause. Another
tenant is served meanwhile. Counts and order only: nothing here measures time, except that a
paused connection must stay unanswered while it is paused (which slowness cannot fake)."""
import http.client
import json
import os
import select
import shutil
import tempfile
import unittest

import verdict_process as vp

CONFIG = """
[server]
max_read_pause_ms = %d
read_timeout_ms = %d
[tenants.alpha]
rate = 0.01
burst = 1
"""


class RateLimitTest(unittest.TestCase):
    def start(self, max_pause_ms, read_timeout_ms=10_000):
        self.tmp = tempfile.mkdtemp(prefix="verdict-rate-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        data_dir = os.path.join(self.tmp, "var")
        self.alpha = vp.create_key(data_dir, "alpha", "scorer")
        self.beta = vp.create_key(data_dir, "beta", "scorer")
        engine = vp.VerdictProcess(data_dir=data_dir, insecure_dev=False,
                                   config=CONFIG % (max_pause_ms, read_timeout_ms))
        self.addCleanup(engine.__exit__, None, None, None)
        return engine

    def decide(self, engine, conn, key, tx_id):
        return engine.request("POST", "/v1/decisions", vp.transaction(tx_id),
                              {"Authorization": "Bearer " + key["key"]}, conn)

    def test_over_rate_connection_is_paused_and_others_are_served(self):
        engine = self.start(max_pause_ms=60_000)
        conn = engine.connection()
        status, _, body = self.decide(engine, conn, self.alpha, "a-1")
        self.assertEqual(status, 200, body)
        status, headers, body = self.decide(engine, conn, self.alpha, "a-2")
        self.assertEqual(status, 429, body)
        self.assertEqual(json.loads(body)["error"]["field"], "tenant")
        self.assertGreaterEqual(int(headers["retry-after"]), 1)

        # The same connection's next request waits: it is not read while paused.
        body = json.dumps(vp.transaction("a-3"))
        conn.request("POST", "/v1/decisions", body=body, headers={
            "Content-Type": "application/json", "Authorization": "Bearer " + self.alpha["key"]})
        readable, _, _ = select.select([conn.sock], [], [], 1.0)
        self.assertEqual(readable, [], "a paused connection was answered")

        # Another tenant, and alpha on a fresh connection (refused again), are answered.
        status, _, body = self.decide(engine, None, self.beta, "b-1")
        self.assertEqual(status, 200, body)
        status, _, _ = self.decide(engine, None, self.alpha, "a-4")
        self.assertEqual(status, 429)
        conn.close()
        self.assertTrue(engine.alive(), engine.read_log())

    def test_a_batch_costs_only_its_decodable_items(self):
        # A batch of undecodable items alone is answered and takes no token; one with a
        # transaction and two undecodable items takes one (rate 0.01/s): the next request is
        # told to wait 100 s, not the 300 s three tokens would owe.
        engine = self.start(max_pause_ms=0)
        conn = engine.connection()
        auth = {"Authorization": "Bearer " + self.alpha["key"]}
        status, _, body = engine.request("POST", "/v1/decisions:batch",
                                         {"transactions": [{"amount": "x"}, 7]}, auth, conn)
        self.assertEqual(status, 200, body)
        self.assertEqual([("error" in item) for item in json.loads(body)["decisions"]],
                         [True, True], body)
        batch = {"transactions": [vp.transaction("a-1"), {"amount": "x"}, 7]}
        status, _, body = engine.request("POST", "/v1/decisions:batch", batch, auth, conn)
        self.assertEqual(status, 200, body)
        items = json.loads(body)["decisions"]
        self.assertEqual(len(items), 3, body)
        self.assertIn("decision_id", items[0], body)
        self.assertIn("error", items[1], body)
        self.assertIn("error", items[2], body)
        status, headers, body = self.decide(engine, conn, self.alpha, "a-2")
        self.assertEqual(status, 429, body)
        self.assertLessEqual(int(headers["retry-after"]), 100)
        self.assertGreater(int(headers["retry-after"]), 50)
        conn.close()

    def test_a_pause_longer_than_the_read_timeout_does_not_cut_the_connection(self):
        # The pause (1 to 2 s) is no read or write in progress: the read timeout (300 ms) must
        # not end it. The request sent meanwhile is read once the pause is over and refused again.
        engine = self.start(max_pause_ms=2_000, read_timeout_ms=300)
        conn = engine.connection()
        self.assertEqual(self.decide(engine, conn, self.alpha, "a-1")[0], 200)
        self.assertEqual(self.decide(engine, conn, self.alpha, "a-2")[0], 429)
        status, headers, _ = self.decide(engine, conn, self.alpha, "a-3")
        self.assertEqual(status, 429)
        self.assertIn("retry-after", headers)
        conn.close()

    def test_zero_max_pause_reads_on_at_once(self):
        engine = self.start(max_pause_ms=0)
        conn = engine.connection()
        self.assertEqual(self.decide(engine, conn, self.alpha, "a-1")[0], 200)
        for i in range(2, 5):
            status, headers, _ = self.decide(engine, conn, self.alpha, "a-%d" % i)
            self.assertEqual(status, 429)
            self.assertIn("retry-after", headers)
        conn.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
