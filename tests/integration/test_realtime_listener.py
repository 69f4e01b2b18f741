"""The realtime listener ([server] realtime_listen, --realtime-listen): a second port with its own
I/O thread serving the same routes, the same engine and the same journal as the main one; and
a bad address refused at start-up, naming the key."""
import http.client
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import VerdictProcess, transaction  # noqa: E402


class RealtimeListenerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = VerdictProcess(realtime_listener=True)

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def realtime_json(self, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.realtime_port, timeout=30)
        try:
            return self.server.json(method, path, body, conn=conn)
        finally:
            conn.close()

    def test_both_listeners_serve_one_engine(self):
        self.assertNotEqual(self.server.realtime_port, self.server.port)
        status, health = self.realtime_json("GET", "/healthz")
        self.assertEqual(status, 200, health)

        status, decided = self.realtime_json(
            "POST", "/v1/decisions", transaction("rt-listener-1", priority="realtime"))
        self.assertEqual(status, 200, decided)
        # The same journal behind both: the main listener finds the decision, and replaying
        # the transaction on it returns the stored one.
        status, found = self.server.json("GET", "/v1/transactions/rt-listener-1/decision")
        self.assertEqual(status, 200, found)
        self.assertEqual(found["decision_id"], decided["decision_id"])
        status, again = self.server.json(
            "POST", "/v1/decisions", transaction("rt-listener-1", priority="realtime"))
        self.assertEqual(status, 200, again)
        self.assertEqual(again["decision_id"], decided["decision_id"])

    def test_realtime_answered_while_the_main_listener_is_busy(self):
        # Keep the main listener's connections busy with bulk while realtime requests go to
        # the realtime port: every one of them is answered (counts only; no timing asserted).
        stop = threading.Event()

        def flood(n):
            conn = self.server.connection()
            i = 0
            while not stop.is_set():
                self.server.request("POST", "/v1/decisions",
                                    transaction(f"bulk-{n}-{i}", priority="bulk"), conn=conn)
                i += 1
            conn.close()

        flooders = [threading.Thread(target=flood, args=(n,)) for n in range(8)]
        for t in flooders:
            t.start()
        try:
            statuses = []
            for i in range(50):
                status, decided = self.realtime_json(
                    "POST", "/v1/decisions", transaction(f"rt-busy-{i}", priority="realtime"))
                statuses.append(status)
                self.assertEqual(decided.get("transaction_id"), f"rt-busy-{i}")
        finally:
            stop.set()
            for t in flooders:
                t.join()
        self.assertEqual(statuses, [200] * 50)
        self.assertTrue(self.server.alive(), self.server.read_log())


class RealtimeListenerConfigTest(unittest.TestCase):
    def test_bad_address_names_the_key(self):
        with self.assertRaises(RuntimeError) as ctx:
            VerdictProcess(config='[server]\nrealtime_listen = "localhost"\n')
        self.assertIn("server.realtime_listen", str(ctx.exception))
        with self.assertRaises(RuntimeError) as ctx:
            VerdictProcess(extra_args=["--realtime-listen", "127.0.0.1:99999"])
        self.assertIn("--realtime-listen", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
