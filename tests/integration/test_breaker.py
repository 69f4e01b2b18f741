"""The model's circuit breaker in the real engine (issue 7): overruns of the model's budget open
it; from then on every decision takes the fallback path and names the breaker as its reason,
/readyz stays ready but says so, and /metrics shows its state (open, then half-open once its
open time has passed, with no decision between). Counts and states only, no timing.

The budget is 1 µs (the smallest the configuration takes): the demo model's 300 trees take
longer than that, so its scorings overrun; the test waits, decision by decision, until the
breaker has opened rather than assuming which scoring opened it."""
import os
import sys
import time
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
version = "3"
[drift]
enabled = false
"""


def state_gauges(text):
    """verdict_engine_model_breaker_state by its state label."""
    out = {}
    for line in text.splitlines():
        if line.startswith("verdict_engine_model_breaker_state{"):
            label, value = line.split("} ")
            out[label.split('"')[1]] = int(float(value))
    return out


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

            self.assertEqual(state_gauges(body.decode()),
                             {"closed": 0, "open": 1, "half_open": 0})

            # Open for an hour: no probe, every decision by rules alone, saying why.
            for i in range(5):
                status, d = server.json("POST", "/v1/decisions", transaction("after-%d" % i),
                                        conn=conn)
                self.assertEqual(status, 200, d)
                self.assertEqual(d["path"], "fallback", d)
                self.assertTrue(any("circuit breaker" in r.get("message", "") for r in
                                    d["reasons"]), d["reasons"])
            conn.close()

    def test_a_closed_breaker_shows_as_closed_before_any_decision(self):
        with VerdictProcess() as server:
            status, _, body = server.request("GET", "/metrics")
            self.assertEqual(status, 200)
            self.assertEqual(state_gauges(body.decode()),
                             {"closed": 1, "open": 0, "half_open": 0})

    def test_the_breaker_turns_half_open_with_time_alone(self):
        # Open for 1 ms: by the next scrape it lets a probe through, with no decision between
        # to update the gauges; the scrape itself must.
        model = os.path.abspath(os.path.join(SOURCE_DIR, "models/demo/model.json"))
        config = CONFIG.format(model=model).replace("breaker_open_ms = 3600000",
                                                    "breaker_open_ms = 1")
        config = config.replace("breaker_failures_to_open = 2", "breaker_failures_to_open = 1")
        with VerdictProcess(config=config) as server:
            conn = server.connection()
            for i in range(200):
                status, d = server.json("POST", "/v1/decisions", transaction("h-%d" % i),
                                        conn=conn)
                self.assertEqual(status, 200, d)
                status, _, body = server.request("GET", "/metrics", conn=conn)
                if metric(body.decode(), "verdict_engine_model_overruns_total") >= 1:
                    break
            time.sleep(0.05)
            status, _, body = server.request("GET", "/metrics", conn=conn)
            self.assertEqual(state_gauges(body.decode()),
                             {"closed": 0, "open": 0, "half_open": 1})
            conn.close()


if __name__ == "__main__":
    unittest.main()
