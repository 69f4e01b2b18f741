"""Payment messages on the decision routes through the real binary: a pacs.008 with two
transactions gets two decisions, a pacs.002 a status report and none, an MT103 one decision,
a bad message a 400 naming the element or tag, a DOCTYPE a refusal, and an unknown text/plain
body a 415."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, VerdictProcess  # noqa: E402

CORPUS = os.path.join(os.path.dirname(__file__), "..", "fuzz", "corpus")
XML = {"Content-Type": "application/xml"}
MT = {"Content-Type": "text/plain; format=swift-mt"}


def sample(kind, name):
    with open(os.path.join(CORPUS, kind, name), "rb") as f:
        return f.read()


class PaymentMessageRoutes(unittest.TestCase):
    # A server each: the samples share transaction ids, and a second body under one id is a
    # conflict by design.
    def setUp(self):
        self.server = VerdictProcess()

    def tearDown(self):
        self.server.stop()

    def test_pacs008_gets_one_decision_per_transaction(self):
        status, body = self.server.json("POST", "/v1/decisions", sample("iso20022", "pacs008.xml"),
                                        XML)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["message"]["type"], "pacs.008.001.08")
        self.assertEqual(body["message"]["transactions"], 2)
        self.assertEqual(len(body["decisions"]), 2)
        for d in body["decisions"]:
            self.assertIn(d["outcome"], ("allow", "review", "block"), d)
        stored = self.server.json(
            "GET", "/v1/transactions/%s/decision" % body["decisions"][0]["transaction_id"])
        self.assertEqual(stored[0], 200)
        self.assertEqual(stored[1]["decision_id"], body["decisions"][0]["decision_id"])

        # The journal keeps what the message said beyond the core fields, and replaying the
        # journal reads it back.
        journal = os.path.join(self.server.tmp, "var", "journal")
        self.server.stop()
        out = subprocess.run([BINARY, "audit", "export", "--data-dir", journal],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        records = [r for r in map(json.loads, out.stdout.splitlines())
                   if r.get("kind") != "admin_event"]
        self.assertEqual(len(records), 2)
        payment = json.loads(records[0]["canonical_input"])["payment"]
        self.assertEqual(payment["message_type"], "pacs.008.001.08")
        self.assertEqual(payment["uetr"], body["decisions"][0]["transaction_id"])
        self.assertTrue(payment["agents"])
        out = subprocess.run([BINARY, "audit", "replay", "--data-dir", journal],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_pacs002_is_a_status_report_without_decisions(self):
        status, body = self.server.json("POST", "/v1/decisions:batch",
                                        sample("iso20022", "pacs002.xml"), XML)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["decisions"], [])
        self.assertEqual(body["status_report"]["group_status"], "PART")
        self.assertEqual([s["status"] for s in body["status_report"]["statuses"]],
                         ["ACSC", "RJCT"])

    def test_mt202cov_gets_a_decision(self):
        status, body = self.server.json("POST", "/v1/decisions", sample("swift_mt", "mt202cov.fin"),
                                        MT)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["message"]["type"], "MT202COV")
        self.assertEqual(len(body["decisions"]), 1)
        self.assertIn("decision_id", body["decisions"][0])

    def test_bad_messages_are_refused_precisely(self):
        status, body = self.server.json("POST", "/v1/decisions", sample("iso20022", "doctype.xml"),
                                        XML)
        self.assertEqual(status, 400, body)
        self.assertIn("DOCTYPE", body["error"]["message"])
        bad_amount = sample("swift_mt", "mt103.fin").replace(b":32A:261202EUR9950,50",
                                                             b":32A:261202EUR9950,5,0")
        status, body = self.server.json("POST", "/v1/decisions", bad_amount, MT)
        self.assertEqual(status, 200, body)  # the message decodes; its one item is an error
        self.assertIn(":32A:", body["decisions"][0]["error"]["message"])
        status, body = self.server.json("POST", "/v1/decisions", b"hello", {
            "Content-Type": "text/plain"})
        self.assertEqual(status, 415, body)


if __name__ == "__main__":
    unittest.main()
