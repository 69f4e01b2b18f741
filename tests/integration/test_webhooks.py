"""Webhooks (issue 45, item 2): a local receiver that fails (500), times out (answers after the
engine's timeout) and succeeds; every event is delivered with a valid signature, the delivery
state is visible per endpoint, and a restart resends what was not delivered, under the same
delivery ids. Bounded: every wait has a deadline; only 127.0.0.1."""
import hashlib
import hmac
import http.server
import json
import os
import shutil
import tempfile
import threading
import time
import unittest

import verdict_process as vp

SECRET = "whsec-test-0123456789"
ENGINE_TIMEOUT_MS = 500
EVENTS = ["decision.flagged", "case.opened", "case.disposed", "drift.alert", "model.rolled_back"]


class Receiver:
    """A webhook receiver on loopback. Each delivery id's first attempt fails, times out or
    succeeds in turn (failures are only planned while `flaky`); `down` answers 500 to all."""

    def __init__(self):
        self.lock = threading.Lock()
        self.attempts = []       # (path, event, delivery id, signature ok, outcome)
        self.delivered = {}      # delivery id -> (event, body), answered 200
        self.first_seen = {}     # delivery id -> its plan
        self.flaky = True
        self.down = False
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                answer = receiver.handle(self.path, self.headers, body)
                if answer == "timeout":
                    time.sleep(ENGINE_TIMEOUT_MS / 1000 * 3)
                    answer = 200
                try:
                    self.send_response(answer)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the engine gave up on this attempt

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handle(self, path, headers, body):
        event = headers.get("Verdict-Event")
        delivery = headers.get("Verdict-Delivery")
        signature = headers.get("Verdict-Signature", "")
        parts = dict(p.split("=", 1) for p in signature.split(",") if "=" in p)
        expected = hmac.new(SECRET.encode(), parts.get("t", "").encode() + b"." + body,
                            hashlib.sha256).hexdigest()
        signed = hmac.compare_digest(parts.get("v1", ""), expected)
        with self.lock:
            if self.down or not signed:
                outcome = 500
            elif delivery not in self.first_seen:
                plan = ("fail", "timeout", "ok")[len(self.first_seen) % 3] if self.flaky else "ok"
                self.first_seen[delivery] = plan
                outcome = {"fail": 500, "timeout": "timeout", "ok": 200}[plan]
            else:
                outcome = 200
            self.attempts.append((path, event, delivery, signed, outcome))
            if outcome in (200, "timeout"):
                # A timed-out attempt is answered too late: the engine sends it again.
                if outcome == 200:
                    self.delivered[delivery] = (event, json.loads(body))
        return outcome

    def snapshot(self):
        with self.lock:
            return list(self.attempts), dict(self.delivered)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def config(receiver_port, secret_file):
    return f"""
[[webhooks]]
url = "http://127.0.0.1:{receiver_port}/hooks"
events = {json.dumps(EVENTS)}
secret_file = "{secret_file}"
timeout_ms = {ENGINE_TIMEOUT_MS}
retry_initial_ms = 50
retry_max_ms = 400

[[webhooks]]
url = "http://127.0.0.1:{receiver_port}/other-tenant"
events = ["decision.flagged"]
secret = "another-secret"
tenant = "bank-z"
"""


def wait_for(predicate, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.05)


class WebhooksTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="verdict-webhooks-")
        self.data_dir = os.path.join(self.tmp, "var")
        self.secret_file = os.path.join(self.tmp, "hook.secret")
        with open(self.secret_file, "w") as f:
            f.write(SECRET + "\n")
        self.receiver = Receiver()
        self.config = config(self.receiver.port, self.secret_file)

    def tearDown(self):
        self.receiver.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def engine(self):
        return vp.VerdictProcess(config=self.config, data_dir=self.data_dir)

    @staticmethod
    def decide(engine, tx_id, amount):
        status, d = engine.json("POST", "/v1/decisions",
                                vp.transaction(tx_id, amount=amount,
                                               sender={"account": "ACC-" + tx_id,
                                                       "country": "US"}))
        assert status == 200, (status, d)
        return d

    def flag(self, engine, prefix, count):
        """Decides `count` transactions that go to review; returns their decision ids."""
        ids = []
        for i in range(count):
            d = self.decide(engine, "%s-%d" % (prefix, i), "%d.00" % (20000 + 1000 * i))
            self.assertIn(d["outcome"], ("review", "block"), d)
            ids.append(d["decision_id"])
        return ids

    def delivered_events(self):
        return {(event, body["data"].get("decision_id") or body["data"].get("case_id"))
                for event, body in self.receiver.snapshot()[1].values()}

    def test_every_event_delivered_signed_and_resent_after_a_restart(self):
        with self.engine() as engine:
            flagged = self.flag(engine, "wh", 5)
            self.assertEqual(self.decide(engine, "wh-quiet", "12.00")["outcome"], "allow")
            # A case disposed: assigned, then disposed by the assignee.
            case_id = flagged[0]
            wait_for(lambda: engine.json("GET", "/v1/cases/" + case_id)[0] == 200, 20,
                     "the case to open")
            status, body = engine.json("POST", "/v1/cases/%s:assign" % case_id, {})
            self.assertEqual(status, 200, body)
            status, body = engine.json("POST", "/v1/cases/%s:dispose" % case_id,
                                       {"disposition": "false_positive"})
            self.assertEqual(status, 200, body)

            expected = ({("decision.flagged", d) for d in flagged} |
                        {("case.opened", d) for d in flagged} | {("case.disposed", case_id)})
            wait_for(lambda: expected <= self.delivered_events(), 40, "every event")
            attempts, delivered = self.receiver.snapshot()
            self.assertEqual(len(delivered), len(expected))  # nothing else: allow raises none
            self.assertTrue(all(signed for _, _, _, signed, _ in attempts))
            plans = set(self.receiver.first_seen.values())
            self.assertEqual(plans, {"fail", "timeout", "ok"})
            self.assertEqual({path for path, *_ in attempts}, {"/hooks"})  # not bank-z's
            for delivery, (event, body) in delivered.items():
                self.assertEqual(body["id"], delivery)
                self.assertEqual(body["type"], event)
                self.assertEqual(body["tenant"], "dev")

            # The delivery state, per endpoint: the caller's tenant sees the deployment's.
            def caught_up():
                status, state = engine.json("GET", "/v1/webhooks")
                assert status == 200, (status, state)
                hook = state["endpoints"][0]
                return len(state["endpoints"]) == 1 and hook["pending_records"] == 0
            wait_for(caught_up, 20, "the cursor to reach the journal's head")
            hook = engine.json("GET", "/v1/webhooks")[1]["endpoints"][0]
            self.assertEqual(hook["delivered_total"], len(expected))
            self.assertGreaterEqual(hook["failed_attempts_total"], 2)
            self.assertEqual(hook["last_status"], 200)
            self.assertIsNone(hook["tenant"])
            self.assertNotIn(SECRET, json.dumps(hook))
            metrics = engine.request("GET", "/metrics")[2].decode()
            self.assertIn("verdict_webhooks_delivered_total", metrics)
            self.assertNotIn(SECRET, engine.read_log())

            # The receiver goes down: new events stay undelivered through a restart.
            self.receiver.down = True
            later = self.flag(engine, "wh-later", 2)
            wait_for(lambda: any(a[4] == 500 and a[1] == "decision.flagged" and
                                 a[2] not in self.receiver.snapshot()[1]
                                 for a in self.receiver.snapshot()[0][len(attempts):]),
                     20, "an attempt while the receiver is down")
            tried_before_restart = {a[2] for a in self.receiver.snapshot()[0][len(attempts):]}

        self.receiver.down = False
        self.receiver.flaky = False
        with self.engine() as engine:
            more = self.flag(engine, "wh-after", 1)
            expected |= ({("decision.flagged", d) for d in later + more} |
                         {("case.opened", d) for d in later + more})
            wait_for(lambda: expected <= self.delivered_events(), 40,
                     "the undelivered events after the restart")
            # Resent under the ids they had before the restart: the receiver can deduplicate.
            self.assertTrue(tried_before_restart <= set(self.receiver.snapshot()[1]))
            attempts, _ = self.receiver.snapshot()
            self.assertTrue(all(signed for _, _, _, signed, _ in attempts))


if __name__ == "__main__":
    unittest.main()
