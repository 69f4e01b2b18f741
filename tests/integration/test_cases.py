"""Case routes (issue 11): paging and filters of the review queue, tenant walls, the
assign -> dispose workflow journaled with the analyst's principal, and the console's static
files (content types, no directory traversal)."""
import json
import os
import subprocess
import tempfile
import time
import unittest

import verdict_process as vp

REVIEW_COUNT = 7




class CasesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="verdict-cases-")
        cls.data_dir = os.path.join(cls.tmp, "var")
        # Decisions are journaled under the caller's tenant ("default" before tenants were
        # plumbed through Submit): the analyst of "default" owns these cases either way.
        cls.analyst = vp.create_key(cls.data_dir, "default", "scorer", "analyst")
        cls.colleague = vp.create_key(cls.data_dir, "default", "analyst")
        cls.scorer = vp.create_key(cls.data_dir, "default", "scorer")
        cls.other = vp.create_key(cls.data_dir, "bank-b", "scorer", "analyst", "admin")
        cls.console_dir = os.path.join(cls.tmp, "console")
        os.makedirs(os.path.join(cls.console_dir, "assets"))
        with open(os.path.join(cls.console_dir, "index.html"), "w") as f:
            f.write("<!doctype html><title>console</title>")
        with open(os.path.join(cls.console_dir, "assets", "app-1.js"), "w") as f:
            f.write("export const x = 1;")
        with open(os.path.join(cls.tmp, "secret.txt"), "w") as f:
            f.write("root:x:0:0 CONTENT-OUTSIDE-THE-CONSOLE")
        cls.engine = vp.VerdictProcess(data_dir=cls.data_dir, insecure_dev=False,
                                       extra_args=["--console-dir", cls.console_dir])
        cls.accounts = {}
        for i in range(REVIEW_COUNT):
            account = "ACC-CASE-%d" % (i % 3)
            txn = vp.transaction("case-%d" % i, amount="%d.00" % (20000 + 1000 * i),
                                 sender={"account": account, "country": "US"},
                                 timestamp="2026-12-02T10:%02d:00Z" % i)
            status, d = cls.engine.json("POST", "/v1/decisions", txn, cls.auth(cls.analyst))
            assert status == 200 and d["outcome"] == "review", (status, d)
            cls.accounts["case-%d" % i] = account
        for i in range(2):
            status, d = cls.engine.json("POST", "/v1/decisions",
                                        vp.transaction("quiet-%d" % i, amount="12.00"),
                                        cls.auth(cls.analyst))
            assert status == 200 and d["outcome"] == "allow", (status, d)
        # Cases open from durable decisions on the case store's own thread.
        deadline = time.monotonic() + 20
        while cls.list(cls.analyst, "status=")["total"] < REVIEW_COUNT:
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

    @staticmethod
    def principal(key):
        """A key's principal, as the authenticator names the caller."""
        return "key:" + key["id"]

    def post(self, key, case_id, action, body):
        return self.engine.json("POST", "/v1/cases/%s:%s" % (case_id, action), body,
                                self.auth(key))

    def case_of(self, transaction_id):
        for c in self.list(self.analyst, "status=&limit=500")["cases"]:
            if c["transaction_id"] == transaction_id:
                return c
        self.fail("no case for " + transaction_id)

    def test_every_review_opened_one_case_and_allows_none(self):
        page = self.list(self.analyst, "status=&limit=500")
        ids = sorted(c["transaction_id"] for c in page["cases"])
        self.assertEqual(len(ids), REVIEW_COUNT)
        self.assertTrue(all(t.startswith("case-") for t in ids), ids)
        c = page["cases"][0]
        self.assertEqual(c["tenant"], "default")
        self.assertIn("AMOUNT_THRESHOLD", c["typologies"])
        self.assertNotIn("comments", c)  # the queue carries summaries

    def test_paging_by_age_visits_every_case_once_in_order(self):
        seen, cursor, pages = [], None, 0
        while True:
            query = "status=&sort=age&limit=3" + ("&cursor=" + cursor if cursor else "")
            page = self.list(self.analyst, query)
            self.assertEqual(page["total"], REVIEW_COUNT)
            self.assertLessEqual(len(page["cases"]), 3)
            seen += page["cases"]
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                break
        self.assertEqual(pages, 3)
        self.assertEqual(len({c["case_id"] for c in seen}), REVIEW_COUNT)
        opened = [c["opened_at"] for c in seen]
        self.assertEqual(opened, sorted(opened))

    def test_paging_by_score_is_highest_first(self):
        scores = [c["score"] for c in self.list(self.analyst, "status=&sort=score")["cases"]]
        self.assertEqual(scores, sorted(scores, reverse=True))

    def test_a_cursor_is_tied_to_its_sort(self):
        cursor = self.list(self.analyst, "status=&sort=age&limit=2")["next_cursor"]
        status, body = self.engine.json("GET", "/v1/cases?sort=score&cursor=" + cursor,
                                        headers=self.auth(self.analyst))
        self.assertEqual(status, 400)
        self.assertEqual(body["error"]["field"], "cursor")

    def test_filters(self):
        page = self.list(self.analyst, "status=&account=ACC-CASE-1")
        expected = sorted(t for t, a in self.accounts.items() if a == "ACC-CASE-1")
        self.assertEqual(sorted(c["transaction_id"] for c in page["cases"]), expected)
        self.assertEqual(self.list(self.analyst, "status=&typology=AMOUNT_THRESHOLD")["total"],
                         REVIEW_COUNT)
        self.assertEqual(self.list(self.analyst, "status=&typology=NO_SUCH_CODE")["total"], 0)

    def test_bad_queries_name_the_field(self):
        for query, field in (("limit=0", "limit"), ("status=shut", "status"),
                             ("sort=random", "sort"), ("colour=red", "colour"),
                             ("cursor=zz", "cursor"),
                             # Quoted back in the message, a byte that is not UTF-8 is
                             # replaced: the answer must still parse as JSON.
                             ("status=%FF", "status")):
            with self.subTest(query=query):
                status, body = self.engine.json("GET", "/v1/cases?" + query,
                                                headers=self.auth(self.analyst))
                self.assertEqual(status, 400, body)
                self.assertEqual(body["error"]["field"], field)

    def test_roles(self):
        self.assertEqual(self.engine.request("GET", "/v1/cases")[0], 401)
        self.assertEqual(self.engine.request("GET", "/v1/cases", headers=self.auth(self.scorer))[0],
                         403)
        c = self.case_of("case-0")
        status, _ = self.post(self.scorer, c["case_id"], "comment", {"text": "hi"})
        self.assertEqual(status, 403)

    def test_tenant_walls(self):
        self.assertEqual(self.list(self.other, "status=")["total"], 0)
        c = self.case_of("case-1")
        for method, path, body in (
                ("GET", "/v1/cases/" + c["case_id"], None),
                ("POST", "/v1/cases/%s:assign" % c["case_id"], {}),
                ("POST", "/v1/cases/%s:comment" % c["case_id"], {"text": "peek"}),
                ("POST", "/v1/cases/%s:dispose" % c["case_id"], {"disposition": "false_positive"})):
            with self.subTest(method=method, path=path):
                status, err = self.engine.json(method, path, body, self.auth(self.other))
                self.assertEqual(status, 404, err)
                self.assertNotIn("case-1", json.dumps(err))
        after = self.case_of("case-1")
        self.assertEqual(after["status"], c["status"])
        self.assertEqual(after["comment_count"], c["comment_count"])

    def test_case_view_has_decision_transaction_proof_and_activity(self):
        c = self.case_of("case-2")
        status, view = self.engine.json("GET", "/v1/cases/" + c["case_id"],
                                        headers=self.auth(self.analyst))
        self.assertEqual(status, 200, view)
        self.assertEqual(view["case"]["case_id"], c["case_id"])
        self.assertEqual(view["decision"]["decision_id"], c["decision_id"])
        self.assertEqual(view["decision"]["outcome"], "review")
        self.assertEqual(view["transaction"]["transaction_id"], "case-2")
        self.assertEqual(view["proof"]["seq"], c["journal_seq"])
        self.assertTrue(view["proof"]["durable"])
        self.assertIn(view["proof"]["status"], ("checkpointed", "awaiting_checkpoint"))
        self.assertEqual(view["activity"]["account"], self.accounts["case-2"])
        self.assertIn("case-2", [r["transaction_id"] for r in view["activity"]["records"]])
        status, _ = self.engine.json("GET", "/v1/cases/%s?proof=everything" % c["case_id"],
                                     headers=self.auth(self.analyst))
        self.assertEqual(status, 400)

    def test_workflow_assign_comment_dispose_is_journaled(self):
        c = self.case_of("case-3")
        cid = c["case_id"]
        # An open case is assigned before a disposition.
        status, err = self.post(self.analyst, cid, "dispose", {"disposition": "false_positive"})
        self.assertIn(status, (400, 409, 412), err)
        status, body = self.post(self.analyst, cid, "assign", {})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["status"], "in_review")
        self.assertEqual(body["assignee"], self.principal(self.analyst))
        # Only the assignee disposes.
        status, err = self.post(self.colleague, cid, "dispose", {"disposition": "true_positive"})
        self.assertIn(status, (400, 403, 409, 412), err)
        status, body = self.post(self.colleague, cid, "comment", {"text": "looks like payroll"})
        self.assertEqual(status, 200, body)
        for bad, field in (({"disposition": "maybe"}, "disposition"), ({}, "disposition"),
                           ({"disposition": "false_positive", "x": 1}, "x")):
            status, err = self.post(self.analyst, cid, "dispose", bad)
            self.assertEqual(status, 400, err)
            self.assertEqual(err["error"].get("field"), field)
        status, body = self.post(self.analyst, cid, "dispose",
                                 {"disposition": "false_positive", "note": "known payroll"})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["status"], "closed")
        self.assertEqual(body["disposition"], "false_positive")
        self.assertEqual([h["action"] for h in body["history"]],
                         ["open", "assign", "comment", "dispose"])
        self.assertEqual(body["history"][-1]["principal"], self.principal(self.analyst))
        # Final: a second disposition is refused; the case left the open queue.
        status, _ = self.post(self.analyst, cid, "dispose", {"disposition": "true_positive"})
        self.assertIn(status, (400, 409, 412))
        self.assertNotIn(cid, [x["case_id"] for x in self.list(self.analyst, "status=open")["cases"]])
        self.assertIn(cid, [x["case_id"] for x in self.list(self.analyst, "status=closed")["cases"]])
        # Journaled as admin events with the analyst's principal.
        events = self.admin_events_after_restart()
        dispose = [e for e in events if e.get("action") == "cases.dispose" and e.get("object") == cid]
        self.assertEqual(len(dispose), 1, events)
        self.assertEqual(dispose[0]["principal"], self.principal(self.analyst))
        self.assertIn("false_positive", json.dumps(dispose[0]))
        # And the case survived the restart as it was.
        self.assertEqual(self.case_of("case-3")["disposition"], "false_positive")

    def admin_events_after_restart(self):
        """Stops the engine, exports the journal, starts it again on the same data."""
        self.engine.__exit__(None, None, None)
        run = subprocess.run([vp.BINARY, "audit", "export", "--data-dir",
                              os.path.join(self.data_dir, "journal")],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        out = run.stdout
        self.check_labels_from_cases()
        type(self).engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False,
                                              extra_args=["--console-dir", self.console_dir])
        events = []
        for line in out.splitlines():
            row = json.loads(line)
            if row.get("kind") == "admin_event":
                events.append(row)
        return events

    def check_labels_from_cases(self):
        """The disposed case (case-3, false_positive) relabels its row in `verdict features`
        and `verdict train` (run while the engine is stopped: they open its journal)."""
        sim_csv = os.path.join(self.tmp, "sim.csv")
        subprocess.run([vp.BINARY, "sim", "--accounts", "1000", "--days", "26", "--out", sim_csv],
                       check=True, capture_output=True)
        with open(sim_csv) as f:
            header = f.readline().rstrip("\n").split(",")
        row = dict.fromkeys(header, "")
        row.update(transaction_id="case-3", timestamp="2026-01-20T10:00:00Z", amount="23000.00",
                   currency="USD", sender_account="ACC-CASE-0", sender_bank="BANKUS33",
                   sender_country="US", receiver_account="ACC-2", receiver_bank="BANKGB22",
                   receiver_country="GB", channel="wire", type="transfer", is_laundering="1",
                   typology="structuring")
        with open(sim_csv, "a") as f:
            f.write(",".join(row[h] for h in header) + "\n")
        out_csv = os.path.join(self.tmp, "features.csv")
        run = subprocess.run([vp.BINARY, "features", "--input", sim_csv, "--out", out_csv,
                              "--labels-from-cases", self.data_dir, "--json"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(json.loads(run.stdout)["case_labels"], 1)
        with open(out_csv) as f:
            columns = f.readline().rstrip("\n").split(",")
            rows = [line.rstrip("\n").split(",") for line in f]
        label_column = next(c for c in ("is_laundering", "label") if c in columns)
        case_row = [r for r in rows if "case-3" in r]
        self.assertEqual(len(case_row), 1)
        self.assertEqual(case_row[0][columns.index(label_column)], "0")  # input said 1
        run = subprocess.run([vp.BINARY, "train", "--input", sim_csv, "--out",
                              os.path.join(self.tmp, "model"), "--rounds", "5", "--threads", "1",
                              "--labels-from-cases", self.data_dir, "--json"],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(json.loads(run.stdout)["case_labels"], 1)
        # Another tenant's dispositions are not this one's labels.
        run = subprocess.run([vp.BINARY, "features", "--input", sim_csv, "--out", out_csv,
                              "--labels-from-cases", self.data_dir, "--labels-tenant", "bank-b",
                              "--json"], capture_output=True, text=True, timeout=120)
        self.assertEqual(json.loads(run.stdout)["case_labels"], 0)

    def test_console_files_content_types_and_no_traversal(self):
        status, headers, body = self.engine.request("GET", "/console/")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/html"))
        self.assertIn("default-src 'self'", headers["content-security-policy"])
        status, headers, _ = self.engine.request("GET", "/console/assets/app-1.js")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/javascript"))
        status, headers, _ = self.engine.request("GET", "/console")
        self.assertEqual(status, 301)
        self.assertEqual(headers["location"], "/console/")
        for path in ("/console/../secret.txt", "/console/..%2fsecret.txt",
                     "/console/%2e%2e%2fsecret.txt", "/console/assets/..%2f..%2fsecret.txt",
                     "/console/assets/../../secret.txt", "/console//etc/passwd",
                     "/console/%2fetc%2fpasswd", "/console/assets/%2e%2e", "/console/assets/"):
            with self.subTest(path=path):
                status, _, body = self.engine.request("GET", path)
                self.assertIn(status, (400, 404), path)
                self.assertNotIn(b"CONTENT-OUTSIDE", body)
                self.assertNotIn(b"root:", body)


if __name__ == "__main__":
    unittest.main(verbosity=2)
