"""Per-tenant policies and models through the real binary (issue 9, I7): a tenant's admin
changes only its own tenant's policy and models. Alpha's admin ingests a policy that blocks large
transfers: alpha's decisions are blocked and journaled with alpha's policy, beta's keep the
deployment's policy; beta sees neither alpha's policy nor alpha's model (nor its drift
monitor), and cannot activate that model (404); both survive a restart; /metrics counts
decisions per tenant."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import verdict_process as vp

BLOCK_BIG = """policy "alpha-strict" version "a-%s"
rule big_amount {
  description "alpha blocks large transfers"
  when txn.amount >= 5000 USD
  then block
  reason "ALPHA_BIG"
}
"""


def read(path):
    with open(path) as f:
        return f.read()


class TenantPoliciesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="verdict-tenant-policies-")
        self.data_dir = os.path.join(self.tmp, "var")
        roles = ("scorer", "analyst", "admin")
        self.alpha = vp.create_key(self.data_dir, "alpha", *roles)
        self.beta = vp.create_key(self.data_dir, "beta", *roles)
        self.engine = None

    def tearDown(self):
        if self.engine is not None:
            self.engine.__exit__(None, None, None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self):
        self.engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False)

    def call(self, key, method, path, body=None):
        return self.engine.json(method, path, body, {"Authorization": "Bearer " + key["key"]})

    def decide(self, key, tx_id, amount):
        status, body = self.call(key, "POST", "/v1/decisions",
                                 vp.transaction(tx_id, amount=amount))
        self.assertEqual(status, 200, body)
        return body

    def metrics(self, key):
        status, _, data = self.engine.request(
            "GET", "/metrics", headers={"Authorization": "Bearer " + key["key"]})
        self.assertEqual(status, 200)
        return data.decode()

    @staticmethod
    def count(text, tenant, outcome):
        total = 0
        for m in re.finditer(r'^verdict_engine_decisions_total\{([^}]*)\} (\d+)$', text, re.M):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
            if labels.get("tenant") == tenant and labels.get("outcome") == outcome:
                total += int(m.group(2))
        return total

    def test_only_an_operator_tenant_reads_every_tenants_metrics(self):
        ops = vp.create_key(self.data_dir, "ops", "auditor")
        self.engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False,
                                        config='[server]\nmetrics_operator_tenants = ["ops"]\n')
        self.decide(self.alpha, "m-a", "100.00")
        self.decide(self.beta, "m-b", "100.00")
        text = self.metrics(ops)
        self.assertEqual(sum(self.count(text, "alpha", o) for o in ("allow", "review", "block")),
                         1, text)
        self.assertEqual(sum(self.count(text, "beta", o) for o in ("allow", "review", "block")),
                         1, text)
        self.assertNotIn('tenant="beta"', self.metrics(self.alpha))

    def test_a_tenants_policy_and_models_are_its_own(self):
        self.start()
        status, deployment = self.call(self.beta, "GET", "/v1/policy")
        self.assertEqual(status, 200, deployment)
        self.assertEqual(deployment["scope"], "deployment")
        # Before: the same large transfer is not blocked for either tenant.
        self.assertNotEqual(self.decide(self.alpha, "before-a", "6000.00")["outcome"], "block")
        self.assertNotEqual(self.decide(self.beta, "before-b", "6000.00")["outcome"], "block")

        # A bad bundle changes nothing (I6).
        status, body = self.call(self.alpha, "POST", "/v1/policy/ingest",
                                 {"version": "x", "policy": "rule {", "files": {}})
        self.assertEqual(status, 400, body)
        self.assertEqual(self.call(self.alpha, "GET", "/v1/policy")[1]["scope"], "deployment")

        status, body = self.call(self.alpha, "POST", "/v1/policy/ingest",
                                 {"version": "a-1", "policy": BLOCK_BIG % "1", "files": {}})
        self.assertEqual(status, 200, body)
        alpha_sha = body["sha256"]
        status, policy = self.call(self.alpha, "GET", "/v1/policy")
        self.assertEqual((policy["version"], policy["sha256"], policy["scope"]),
                         ("a-1", alpha_sha, "tenant"))
        # Beta sees the deployment's policy, never alpha's.
        status, policy = self.call(self.beta, "GET", "/v1/policy")
        self.assertEqual(policy, deployment)

        a = self.decide(self.alpha, "after-a", "6000.00")
        self.assertEqual(a["outcome"], "block", a)
        self.assertEqual(a["policy"], {"version": "a-1", "sha256": alpha_sha})
        self.assertIn("ALPHA_BIG", [r["code"] for r in a["reasons"]])
        b = self.decide(self.beta, "after-b", "6000.00")
        self.assertNotEqual(b["outcome"], "block", b)
        self.assertEqual(b["policy"]["sha256"], deployment["sha256"])

        # Models: alpha registers and activates its own copy of the demo model; beta cannot see
        # or activate it, and keeps deciding with the deployment's (none here: fallback).
        demo = os.path.join(vp.SOURCE_DIR, "models", "demo")
        upload = {"name": "alpha-aml", "version": "1",
                  "model": read(os.path.join(demo, "model.json")),
                  "reference": json.loads(read(os.path.join(demo, "reference.json")))}
        status, body = self.call(self.alpha, "POST", "/v1/models", upload)
        self.assertEqual(status, 201, body)
        status, body = self.call(self.alpha, "POST", "/v1/models/alpha-aml/1:activate",
                                 {"mode": "primary"})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["scope"], "tenant")
        self.assertEqual(body["active"]["primary"]["name"], "alpha-aml")
        status, body = self.call(self.beta, "GET", "/v1/models")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["scope"], "deployment")
        self.assertNotIn("alpha-aml", [m["name"] for m in body["models"]])
        self.assertIsNone(body["active"]["primary"])
        status, body = self.call(self.beta, "POST", "/v1/models/alpha-aml/1:activate",
                                 {"mode": "primary"})
        self.assertEqual(status, 404, body)
        status, body = self.call(self.beta, "POST", "/v1/models:rollback", None)
        # Beta has nothing of its own to roll back; alpha's model is untouched.
        self.assertEqual((status, body["error"]["code"]), (400, "failed_precondition"), body)
        self.assertEqual(self.call(self.beta, "GET", "/v1/models")[1]["scope"], "deployment")
        # Nor does bad input make a lifecycle of beta's own (I6): a model that does not load,
        # and a canary weight out of range.
        status, body = self.call(self.beta, "POST", "/v1/models",
                                 {"name": "beta-aml", "version": "1", "model": {}})
        self.assertEqual((status, body["error"]["field"]), (400, "model"), body)
        status, body = self.call(self.beta, "POST", "/v1/models/alpha-aml/1:activate",
                                 {"mode": "canary", "traffic_weight": 2})
        self.assertEqual((status, body["error"]["field"]), (400, "traffic_weight"), body)
        self.assertEqual(self.call(self.beta, "GET", "/v1/models")[1]["scope"], "deployment")
        a = self.decide(self.alpha, "model-a", "100.00")
        self.assertEqual((a["path"], a["model"]["name"]), ("model", "alpha-aml"), a)
        b = self.decide(self.beta, "model-b", "100.00")
        self.assertEqual((b["path"], b["model"]), ("fallback", None), b)
        # Drift: alpha's own model has its own monitor; beta (no model) has none to see or
        # clear, alpha's included.
        status, body = self.call(self.alpha, "GET", "/v1/drift")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["model"], {"name": "alpha-aml", "version": "1"})
        self.assertEqual(self.call(self.beta, "GET", "/v1/drift")[0], 404)
        self.assertEqual(self.call(self.beta, "POST", "/v1/drift:clear")[0], 404)

        # Metrics: per-tenant decision counts (3 decisions each so far, alpha's block counted),
        # each tenant's key reading its own series only (I7).
        text = self.metrics(self.alpha)
        self.assertEqual(self.count(text, "alpha", "block"), 1, text)
        self.assertEqual(sum(self.count(text, "alpha", o) for o in ("allow", "review", "block")),
                         3)
        self.assertNotIn('tenant="beta"', text)
        self.assertIn("verdict_engine_stage_seconds_count", text)  # engine-wide: shown
        text = self.metrics(self.beta)
        self.assertEqual(self.count(text, "beta", "block"), 0)
        self.assertEqual(sum(self.count(text, "beta", o) for o in ("allow", "review", "block")),
                         3)
        self.assertRegex(text, r'verdict_engine_decision_seconds_count\{tenant="beta"\} 3')
        self.assertNotIn('tenant="alpha"', text)

        # Restart: alpha's policy and model are restored, beta's are still the deployment's.
        self.engine.stop()
        self.start()
        status, policy = self.call(self.alpha, "GET", "/v1/policy")
        self.assertEqual((policy["version"], policy["sha256"], policy["scope"]),
                         ("a-1", alpha_sha, "tenant"))
        self.assertEqual(self.call(self.beta, "GET", "/v1/policy")[1], deployment)
        a = self.decide(self.alpha, "restart-a", "6000.00")
        self.assertEqual((a["outcome"], a["policy"]["sha256"]), ("block", alpha_sha), a)
        self.assertEqual(a["model"]["name"], "alpha-aml")
        b = self.decide(self.beta, "restart-b", "6000.00")
        self.assertNotEqual(b["outcome"], "block", b)
        self.assertEqual(b["model"], None)
        # A retry of a decision made before the restart is answered as first decided.
        self.assertEqual(self.decide(self.alpha, "after-a", "6000.00")["policy"]["sha256"],
                         alpha_sha)

        # The journal: each decision carries the policy that decided it, and the activation is
        # alpha's admin event, not beta's.
        journal = os.path.join(self.data_dir, "journal")
        self.engine.stop()
        out = subprocess.run([vp.BINARY, "audit", "export", "--data-dir", journal],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        decided = {}
        for r in rows:
            if r.get("kind") == "admin_event":
                continue
            decision = r["decision"] if isinstance(r["decision"], dict) else json.loads(
                r["decision"])
            decided[(r["tenant"], json.loads(r["canonical_input"])["transaction_id"])] = decision
        self.assertEqual(decided[("alpha", "after-a")]["policy"]["sha256"], alpha_sha)
        self.assertEqual(decided[("alpha", "restart-a")]["policy"]["sha256"], alpha_sha)
        for tx in ("after-b", "restart-b"):
            self.assertEqual(decided[("beta", tx)]["policy"]["sha256"], deployment["sha256"])
        events = [(r["tenant"], r["action"]) for r in rows if r.get("kind") == "admin_event"]
        self.assertIn(("alpha", "policy.activate"), events, events)
        self.assertNotIn(("beta", "policy.activate"), events)
        self.assertIn(("alpha", "models.activate"), events)


if __name__ == "__main__":
    unittest.main()
