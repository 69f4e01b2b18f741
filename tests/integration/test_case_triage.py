"""The analyst's triage contract against the real binary (docs/console.md): the review queue
in severity order by default (block before review, then risk highest first, ties oldest first)
across pages, the assignee and date filters, bulk assignment with per-case results, who the
caller is, and an account's network (counterparties, flagged parties, a cycle) within the
caller's tenant. The shipped configuration (demo model and policy) decides, so cases carry
the model's risk."""
import datetime
import os
import tempfile
import time
import unittest

import verdict_process as vp

TENANT = "bank-triage"


def txn(tx_id, sender, receiver, amount="1500.00", receiver_country="GB", minute=0):
    return vp.transaction(
        tx_id, amount=amount,
        sender={"account": sender, "bank": "BANKUS33", "country": "US", "name": "Ann Lee"},
        receiver={"account": receiver, "bank": "BANKGB22", "country": receiver_country,
                  "name": "Bo Chan"},
        timestamp="2026-12-02T10:%02d:00Z" % minute)


class CaseTriageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="verdict-triage-")
        cls.data_dir = os.path.join(cls.tmp, "var")
        cls.alice = vp.create_key(cls.data_dir, TENANT, "scorer", "analyst")
        cls.bob = vp.create_key(cls.data_dir, TENANT, "analyst")
        cls.other = vp.create_key(cls.data_dir, "bank-other", "scorer", "analyst")
        cls.engine = vp.VerdictProcess(data_dir=cls.data_dir, insecure_dev=False,
                                       config=vp.shipped_config_text())
        cls.outcomes = {}
        minute = 0

        def decide(key, t):
            nonlocal minute
            status, d = cls.engine.json("POST", "/v1/decisions", t, cls.auth(key))
            assert status == 200, (status, d)
            cls.outcomes[t["transaction_id"]] = d["outcome"]
            minute += 1
            return d

        # Reviews (a high-risk corridor) of different amounts, so of different model scores.
        for i, amount in enumerate(["250.00", "4800.00", "9900.00", "15000.00", "700.00"]):
            decide(cls.alice, txn("rev-%d" % i, "ACC-T-%d" % i, "ACC-IR-%d" % i, amount, "IR",
                                  minute))
        # Blocks (the internal block list), whatever the model says.
        for i, amount in enumerate(["20.00", "90000.00"]):
            decide(cls.alice, txn("blk-%d" % i, "ACC-BLOCKED-1", "ACC-TB-%d" % i, amount,
                                  "GB", minute))
        # A round trip NET-A -> NET-B -> NET-C -> NET-A, and NET-A paying NET-D.
        for tx_id, s, r in [("net-1", "NET-A", "NET-B"), ("net-2", "NET-B", "NET-C"),
                            ("net-3", "NET-C", "NET-A"), ("net-4", "NET-A", "NET-D"),
                            ("net-5", "NET-A", "NET-B")]:
            decide(cls.alice, txn(tx_id, s, r, "1200.00", "GB", minute))
        # The other tenant pays NET-A too: never part of this tenant's network.
        decide(cls.other, txn("other-1", "NET-X", "NET-A", "5000.00", "IR", minute))
        cls.flagged = sum(1 for t, o in cls.outcomes.items()
                          if o != "allow" and not t.startswith("other"))
        deadline = time.monotonic() + 20
        while cls.list(cls.alice, "limit=500")["total"] < cls.flagged:
            assert time.monotonic() < deadline, "cases did not open"
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        cls.engine.__exit__(None, None, None)

    @staticmethod
    def auth(key):
        return {"Authorization": "Bearer " + key["key"]}

    @classmethod
    def list(cls, key, query=""):
        status, body = cls.engine.json("GET", "/v1/cases?" + query, headers=cls.auth(key))
        assert status == 200, (status, body)
        return body

    def get(self, key, path):
        return self.engine.json("GET", path, headers=self.auth(key))

    def test_default_order_is_severity_then_risk_then_oldest(self):
        self.assertEqual(self.outcomes["blk-0"], "block")
        self.assertEqual(self.outcomes["rev-0"], "review")
        page = self.list(self.alice, "limit=500")
        self.assertEqual(page["sort"], "severity")
        cases = page["cases"]
        self.assertEqual(len(cases), self.flagged)
        rank = {"block": 2, "review": 1}
        for c in cases:
            self.assertIn("risk", c, c["case_id"])  # the model scored every one
            self.assertTrue(c["reasons"], c["case_id"])
            self.assertTrue(all(r["message"] for r in c["reasons"]))
        for a, b in zip(cases, cases[1:]):
            key_a = (rank[a["outcome"]], a["risk"])
            key_b = (rank[b["outcome"]], b["risk"])
            self.assertGreaterEqual(key_a, key_b, (a, b))
            if key_a == key_b:
                self.assertLessEqual(a["opened_at"], b["opened_at"])
        outcomes = [c["outcome"] for c in cases]
        self.assertEqual(outcomes[:2], ["block", "block"])
        # The same order page by page.
        paged, query = [], "limit=2"
        while True:
            body = self.list(self.alice, query)
            self.assertEqual(body["sort"], "severity")
            paged += [c["case_id"] for c in body["cases"]]
            if body["next_cursor"] is None:
                break
            query = "limit=2&cursor=" + body["next_cursor"]
        self.assertEqual(paged, [c["case_id"] for c in cases])
        # The older sorts still answer, and a severity cursor is refused under another sort.
        first = self.list(self.alice, "limit=1")
        status, body = self.get(self.alice, "/v1/cases?sort=score&cursor=" + first["next_cursor"])
        self.assertEqual(status, 400)
        self.assertEqual(body["error"]["field"], "cursor")
        scores = [c["score"] for c in self.list(self.alice, "sort=score&limit=500")["cases"]]
        self.assertEqual(scores, sorted(scores, reverse=True))

    def test_bulk_assign_filters_and_whoami(self):
        status, me = self.get(self.bob, "/v1/whoami")
        self.assertEqual(status, 200)
        self.assertEqual(me, {"principal": "key:" + self.bob["id"], "tenant": TENANT,
                              "roles": ["analyst"]})
        reviews = [c for c in self.list(self.alice, "limit=500&status=open")["cases"]
                   if c["outcome"] == "review" and c["transaction_id"].startswith("rev-")]
        self.assertGreaterEqual(len(reviews), 3)
        ids = [c["case_id"] for c in reviews[:3]]
        other_case = self.list(self.other, "limit=1")["cases"][0]["case_id"]
        status, body = self.engine.json(
            "POST", "/v1/cases:assign",
            {"case_ids": [ids[0], "no-such-case", ids[1], other_case, ids[2]]},
            self.auth(self.bob))
        self.assertEqual(status, 200, body)
        results = body["results"]
        self.assertEqual([r["case_id"] for r in results],
                         [ids[0], "no-such-case", ids[1], other_case, ids[2]])
        self.assertEqual([r["result"] for r in results],
                         ["assigned", "refused", "assigned", "refused", "assigned"])
        self.assertEqual(results[1]["error"]["code"], "not_found")
        self.assertEqual(results[3]["error"]["code"], "not_found")  # another tenant's: as unknown
        self.assertEqual((body["assigned"], body["unchanged"], body["refused"]), (3, 0, 2))
        self.assertEqual(results[0]["case"]["assignee"], "key:" + self.bob["id"])
        # Each assignment is in the case's history, as a single one would be.
        status, view = self.get(self.alice, "/v1/cases/" + ids[0])
        self.assertEqual(view["case"]["history"][-1]["action"], "assign")
        self.assertEqual(view["case"]["history"][-1]["principal"], "key:" + self.bob["id"])
        # Again: nothing changes.
        status, again = self.engine.json("POST", "/v1/cases:assign", {"case_ids": ids[:1]},
                                         self.auth(self.bob))
        self.assertEqual(again["results"][0]["result"], "unchanged")
        # The other tenant's case was not touched.
        status, theirs = self.get(self.other, "/v1/cases/" + other_case)
        self.assertIsNone(theirs["case"]["assignee"])

        mine = self.list(self.bob, "assignee=me&limit=500")
        self.assertEqual(sorted(c["case_id"] for c in mine["cases"]), sorted(ids))
        self.assertEqual(self.list(self.alice, "assignee=me")["total"], 0)
        unassigned = self.list(self.alice, "assignee=none&limit=500")
        self.assertEqual(unassigned["total"], self.flagged - 3)
        self.assertTrue(all(c["assignee"] is None for c in unassigned["cases"]))
        # Combined with a filter, the sort and a cursor.
        page = self.list(self.bob, "assignee=me&typology=HIGH_RISK_CORRIDOR&limit=2")
        self.assertEqual(page["total"], 3)
        rest = self.list(self.bob, "assignee=me&typology=HIGH_RISK_CORRIDOR&limit=2&cursor=" +
                         page["next_cursor"])
        self.assertEqual(len(page["cases"]) + len(rest["cases"]), 3)
        # Dates: every case opened today (UTC), none tomorrow.
        today = datetime.datetime.now(datetime.timezone.utc).date()
        tomorrow = today + datetime.timedelta(days=1)
        self.assertEqual(self.list(self.alice, "from=%s&to=%s&limit=500" % (today, today))
                         ["total"], self.flagged)
        self.assertEqual(self.list(self.alice, "from=%s" % tomorrow)["total"], 0)
        for query, field in [("from=yesterday", "from"), ("to=2026-02-30", "to"),
                             ("from=%s&to=%s" % (tomorrow, today), "to"),
                             ("assignee=" + "x" * 300, "assignee")]:
            status, body = self.get(self.alice, "/v1/cases?" + query)
            self.assertEqual(status, 400, query)
            self.assertEqual(body["error"]["field"], field, query)
        for bad, field in [({}, "case_ids"), ({"case_ids": []}, "case_ids"),
                           ({"case_ids": ["a", "a"]}, "case_ids"),
                           ({"case_ids": ["a"], "colour": 1}, "colour")]:
            status, body = self.engine.json("POST", "/v1/cases:assign", bad, self.auth(self.bob))
            self.assertEqual(status, 400, bad)
            self.assertEqual(body["error"]["field"], field, bad)

    def test_account_network(self):
        status, net = self.get(self.alice, "/v1/accounts/NET-A/network?days=30")
        self.assertEqual(status, 200, net)
        self.assertEqual(net["account"], "NET-A")
        self.assertEqual(net["days"], 30)
        nodes = {n["account"]: n for n in net["nodes"]}
        self.assertEqual(set(nodes), {"NET-A", "NET-B", "NET-C", "NET-D"})  # not NET-X
        self.assertTrue(nodes["NET-A"]["center"])
        self.assertEqual(net["nodes"][1]["account"], "NET-B")  # two payments with NET-A
        edges = {(e["from"], e["to"]): e for e in net["edges"]}
        self.assertEqual(edges[("NET-A", "NET-B")]["count"], 2)
        self.assertEqual(edges[("NET-A", "NET-B")]["totals"],
                         [{"currency": "USD", "amount": "2400.00"}])
        self.assertIn(("NET-B", "NET-C"), edges)  # between counterparties
        self.assertEqual(net["cycles"], [["NET-A", "NET-B", "NET-C"]])
        for pair in [("NET-A", "NET-B"), ("NET-B", "NET-C"), ("NET-C", "NET-A")]:
            self.assertTrue(edges[pair]["in_cycle"], pair)
        self.assertFalse(edges[("NET-A", "NET-D")]["in_cycle"])
        self.assertEqual(nodes["NET-A"]["out"]["count"], 3)
        self.assertEqual(nodes["NET-A"]["in"]["count"], 1)
        for n in net["nodes"]:
            self.assertEqual(n["flagged"], n["flagged_decisions"] > 0)
        # The other tenant's analyst sees only its own payment with NET-A.
        status, theirs = self.get(self.other, "/v1/accounts/NET-A/network")
        self.assertEqual(status, 200)
        self.assertEqual({n["account"] for n in theirs["nodes"]}, {"NET-A", "NET-X"})
        self.assertTrue(theirs["nodes"][1]["flagged"])  # its review (high-risk corridor)
        for query in ["days=0", "days=91", "days=x", "weeks=2"]:
            status, body = self.get(self.alice, "/v1/accounts/NET-A/network?" + query)
            self.assertEqual(status, 400, query)
            self.assertEqual(body["error"]["field"], query.split("=")[0], query)
        status, _ = self.engine.json("GET", "/v1/accounts/NET-A/network")
        self.assertEqual(status, 401)


if __name__ == "__main__":
    unittest.main()
