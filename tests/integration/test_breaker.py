"""The model's circuit breaker in the real engine (issue 7): overruns of the model's budget open
it; from then on every decision takes the fallback path and names the breaker as its reason,
/readyz stays ready but says so, and /metrics shows it open. Counts and states only, no timing.

The budget is 1 µs (the smallest the configuration takes): the demo model's 300 trees take
longer than that, so its scorings overrun; the test waits, decision by decision, until the
breaker has opened rather than assuming which scoring opened it."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import SOURCE_DIR, VerdictProcess, transaction  # noqa: E402

CONFIG = """
[sched]
model_budget_us = 1
breaker_failures_to_open = 2
breaker_open_ms = 3600000
[model]
path = "{model}"
name = "demo"
version = "2"
[drift]
enabled = false
"""


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


class BreakerTest(unittest.TestCase):
    def test_overruns_open_the_breaker_and_every_decision_falls_back(self):
        model = os.path.abspath(os.path.join(SOURCE_DIR, "models/demo/model.json"))
        with VerdictProcess(config=CONFIG.format(model=model)) as server:
            conn = server.connection()
            status, ready = server.json("GET", "/readyz", conn=conn)
            self.assertEqual(status, 200, ready)
            self.assertNotIn("reason", ready)

            opened = False
            for i in range(200):
                status, d = server.json("POST", "/v1/decisions", transaction("b-%d" % i),
                                        conn=conn)
                self.assertEqual(status, 200, d)
                status, _, body = server.request("GET", "/metrics", conn=conn)
                self.assertEqual(status, 200)
                if metric(body.decode(), "verdict_engine_model_breaker_open") == 1:
                    opened = True
                    break
            self.assertTrue(opened, "200 scorings of the demo model never overran 1 µs twice")
            self.assertGreaterEqual(
                metric(body.decode(), "verdict_engine_model_overruns_total"), 2)

            status, ready = server.json("GET", "/readyz", conn=conn)
            self.assertEqual(status, 200, ready)
            self.assertTrue(ready["ready"])
            self.assertIn("circuit breaker open", ready["reason"])

            # Open for an hour: no probe, every decision by rules alone, saying why.
            for i in range(5):
                status, d = server.json("POST", "/v1/decisions", transaction("after-%d" % i),
                                        conn=conn)
                self.assertEqual(status, 200, d)
                self.assertEqual(d["path"], "fallback", d)
                self.assertTrue(any("circuit breaker" in r.get("message", "") for r in
                                    d["reasons"]), d["reasons"])
            conn.close()


if __name__ == "__main__":
    unittest.main()
