"""Tenant walls through the real binary (issue 9, I7): decisions, idempotency and account state
are each tenant's own. Another tenant's decision is 404, the same transaction id under two
tenants is two transactions, one tenant's history never shows in another's features, and the
journal records each decision's tenant and principal."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import verdict_process as vp




class TenantWallsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="verdict-tenants-")
        self.data_dir = os.path.join(self.tmp, "var")
        self.alpha = vp.create_key(self.data_dir, "alpha", "scorer", "analyst")
        self.beta = vp.create_key(self.data_dir, "beta", "scorer", "analyst")
        self.engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False)

    def tearDown(self):
        self.engine.__exit__(None, None, None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def call(self, key, method, path, body=None):
        return self.engine.json(method, path, body,
                                {"Authorization": "Bearer " + key["key"]})

    def decide(self, key, txn):
        status, body = self.call(key, "POST", "/v1/decisions", txn)
        self.assertEqual(status, 200, body)
        return body

    def test_tenants_are_walls(self):
        first = vp.transaction("tx-1", amount="100.00")
        a1 = self.decide(self.alpha, first)
        self.decide(self.alpha, vp.transaction(
            "tx-2", amount="250.00", timestamp="2026-12-02T10:20:00Z",
            receiver={"account": "ACC-3", "country": "GB"}))

        # Reads: the owner sees its decision, the other tenant gets 404 and an empty history.
        self.assertEqual(self.call(self.alpha, "GET", "/v1/decisions/" + a1["decision_id"])[0],
                         200)
        self.assertEqual(self.call(self.beta, "GET", "/v1/decisions/" + a1["decision_id"])[0],
                         404)
        self.assertEqual(self.call(self.beta, "GET", "/v1/transactions/tx-1/decision")[0], 404)
        status, body = self.call(self.beta, "GET", "/v1/accounts/ACC-1/decisions")
        self.assertEqual((status, body["decisions"]), (200, []))
        status, body = self.call(self.alpha, "GET", "/v1/accounts/ACC-1/decisions")
        self.assertEqual(len(body["decisions"]), 2)

        # Idempotency is per tenant: beta's tx-1 with another body is its own transaction;
        # alpha's retry is the stored decision, and another body under alpha's id is 409.
        b1 = self.decide(self.beta, vp.transaction(
            "tx-1", amount="999.00", sender={"account": "ACC-7"}, receiver={"account": "ACC-8"}))
        self.assertNotEqual(b1["decision_id"], a1["decision_id"])
        self.assertEqual(self.decide(self.alpha, first)["decision_id"], a1["decision_id"])
        status, _ = self.call(self.alpha, "POST", "/v1/decisions",
                              vp.transaction("tx-1", amount="999.00"))
        self.assertEqual(status, 409)

        # State: beta's first transaction on ACC-1 (the same content as alpha's first) sees no
        # history, exactly as alpha's first did, although alpha's ACC-1 has two transactions.
        self.decide(self.beta, dict(first, transaction_id="tx-9"))

        journal = os.path.join(self.data_dir, "journal")
        self.engine.stop()
        out = subprocess.run([vp.BINARY, "audit", "export", "--data-dir", journal],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        records = {(r["tenant"], json.loads(r["canonical_input"])["transaction_id"]): r
                   for r in map(json.loads, out.stdout.splitlines())
                   if r.get("kind") != "admin_event"}
        self.assertEqual(set(records), {("alpha", "tx-1"), ("alpha", "tx-2"), ("beta", "tx-1"),
                                        ("beta", "tx-9")})
        self.assertEqual(records[("beta", "tx-9")]["features"],
                         records[("alpha", "tx-1")]["features"])
        self.assertNotEqual(records[("alpha", "tx-2")]["features"],
                            records[("alpha", "tx-1")]["features"])
        self.assertEqual(records[("alpha", "tx-1")]["principal"], "key:" + self.alpha["id"])
        self.assertEqual(records[("beta", "tx-1")]["principal"], "key:" + self.beta["id"])
        # Replaying the journal recomputes every tenant's account states as stored.
        out = subprocess.run([vp.BINARY, "audit", "replay", "--data-dir", journal],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)


if __name__ == "__main__":
    unittest.main()
